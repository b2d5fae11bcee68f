package pipeline_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned"
)

const rpcFixtures = "../../fixtures/ulinkrpc"

// feedRPC decodes a ULinkRPC fixture capture through FeedRPC with the
// fixture contracts (and the fixture key for the encrypted one).
func feedRPC(t *testing.T, name string, p *unturned.Profile, ports []uint16) (*session.Index, *pipeline.RPC) {
	t.Helper()
	cfg := rpc.Config{Contracts: fixtureContracts(t)}
	if name == "websocket-encrypted" {
		master, _ := base64.StdEncoding.DecodeString("dXNtbnNjb3BlIGZpeHR1cmUga2V5")
		k := ulinkrpc.DeriveKeys(master, ulinkrpc.HKDF)
		cfg.Transform.Keys = &k
	}
	return feedRPCWith(t, name, p, ports, cfg)
}

// feedRPCWith is feedRPC with cfg: it decodes the fixture into a full
// index (the TUI's).
func feedRPCWith(t *testing.T, name string, p *unturned.Profile, ports []uint16, cfg rpc.Config) (*session.Index, *pipeline.RPC) {
	t.Helper()
	rp := pipeline.NewRPC(cfg)
	rp.Ports = ports
	src, err := capture.Open(filepath.Join(rpcFixtures, name+".pcapng"), capture.Options{TransportPort: p.TransportPort, DatagramPorts: rp.DatagramPorts(p.DecodeAs), ProbeDatagrams: pipeline.KCPProbeDatagrams})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ix := session.NewIndex(p)
	if err := pipeline.FeedRPC(src, ix, rp, nil); err != nil {
		t.Fatal(err)
	}
	return ix, rp
}

// fixtureContracts are the ULinkRPC fixtures' contracts.
func fixtureContracts(t *testing.T) *ulinkrpc.Contracts {
	t.Helper()
	con, err := ulinkrpc.ParseContractsFS(os.DirFS(filepath.Join(rpcFixtures, "contracts")), ".")
	if err != nil {
		t.Fatal(err)
	}
	return con
}

func ndjson(rs []*rpc.Record) []byte {
	var b []byte
	for _, r := range rs {
		b = append(rpc.AppendJSON(b, r), '\n')
	}
	return b
}

// TestFeedRPCFixtures: every TCP and WebSocket ULinkRPC fixture, found by
// its port (20000, the default), gives through the pipeline the records
// package rpc's own goldens hold for it, hosted by the index: one ULinkRPC
// connection whose records are every n from 1. KCP comes as UDP datagrams
// on the same port.
func TestFeedRPCFixtures(t *testing.T) {
	for _, tc := range []struct {
		name      string
		transport rpc.Transport
	}{
		{"tcp-json", rpc.TCP}, {"tcp-memorypack", rpc.TCP}, {"tcp-gzip", rpc.TCP},
		{"tcp-midstream", rpc.TCP}, {"websocket-json", rpc.WebSocket}, {"websocket-encrypted", rpc.WebSocket},
		{"kcp-json", rpc.KCP}, {"kcp-memorypack", rpc.KCP},
		{"websocket-midstream", rpc.WebSocket}, {"kcp-otherport", rpc.KCP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, rp := feedRPC(t, tc.name, unturned.Default(), nil)
			if len(rp.Sessions()) != 1 {
				t.Fatalf("%d ULinkRPC sessions; want 1", len(rp.Sessions()))
			}
			if got := rp.Sessions()[0].Transport(); got != tc.transport {
				t.Errorf("transport %s; want %s", got, tc.transport)
			}
			cs := ix.Connections()
			if len(cs) != 1 || cs[0].Proto != rpc.Name || cs[0].Label != rpc.Name+" "+tc.transport.String() || cs[0].Messages != ix.Len() || ix.Len() != len(rp.Records()) {
				t.Errorf("index: %d messages on connections %+v; want one ULinkRPC %s connection holding all %d records", ix.Len(), cs, tc.transport, len(rp.Records()))
			}
			want, err := os.ReadFile(filepath.Join(rpcFixtures, "golden", tc.name+".dump.ndjson"))
			if err != nil {
				t.Fatal(err)
			}
			if got := ndjson(rp.Records()); !bytes.Equal(got, want) {
				t.Errorf("records differ from golden/%s.dump.ndjson:\n%s", tc.name, got)
			}
		})
	}
}

// TestFeedRPCByContent: with no ULinkRPC port configured, connections
// whose start was captured are found by their first client bytes, a frame
// or a WebSocket upgrade, and decode the same; the mid-stream one is not
// guessed and gets the router's note; with no RPC (Feed) none is decoded.
func TestFeedRPCByContent(t *testing.T) {
	for _, name := range []string{"tcp-json", "tcp-memorypack", "websocket-json"} {
		_, rp := feedRPC(t, name, unturned.Default(), []uint16{1})
		want, _ := os.ReadFile(filepath.Join(rpcFixtures, "golden", name+".dump.ndjson"))
		if got := ndjson(rp.Records()); len(rp.Sessions()) != 1 || !bytes.Equal(got, want) {
			t.Errorf("%s by content: %d sessions, records equal to the golden: %v", name, len(rp.Sessions()), bytes.Equal(got, want))
		}
	}
	ix, rp := feedRPC(t, "tcp-midstream", unturned.Default(), []uint16{1})
	if len(rp.Sessions()) != 0 || len(ix.Connections()) != 1 {
		t.Errorf("mid-stream on no ULinkRPC port: %d sessions, %d noted connections; want 0 and 1", len(rp.Sessions()), len(ix.Connections()))
	}
}

// TestFeedRPCDecodeAs: --decode-as turns a ULinkRPC port off, or names a
// port that is not one.
func TestFeedRPCDecodeAs(t *testing.T) {
	p := unturned.Default()
	p.DecodeAs = "20000=none"
	ix, rp := feedRPC(t, "tcp-json", p, nil)
	if len(rp.Sessions()) != 0 || len(ix.Connections()) != 1 {
		t.Errorf("20000=none: %d sessions, %d noted connections; want 0 and 1", len(rp.Sessions()), len(ix.Connections()))
	}
	p = unturned.Default()
	p.DecodeAs = "20000=ulinkrpc"
	_, rp = feedRPC(t, "tcp-midstream", p, []uint16{1})
	if len(rp.Sessions()) != 1 || len(rp.Records()) == 0 {
		t.Errorf("20000=ulinkrpc: %d sessions, %d records; want 1 and some", len(rp.Sessions()), len(rp.Records()))
	}
}

// TestRPCDatagramPorts: the ULinkRPC ports and the ports --decode-as names
// ulinkrpc, less those it turns off, at most four.
func TestRPCDatagramPorts(t *testing.T) {
	rp := pipeline.NewRPC(rpc.Config{})
	for _, tt := range []struct {
		decodeAs string
		want     [4]uint16
	}{
		{"", [4]uint16{20000}},
		{"20001=ulinkrpc", [4]uint16{20000, 20001}},
		{"20000=none,7=ulinkrpc,27017=unturned", [4]uint16{7}},
		{"1=ulinkrpc,2=ulinkrpc,3=ulinkrpc,4=ulinkrpc", [4]uint16{1, 2, 3, 4}},
	} {
		if got := rp.DatagramPorts(tt.decodeAs); got != tt.want {
			t.Errorf("DatagramPorts(%q) = %v; want %v", tt.decodeAs, got, tt.want)
		}
	}
}
