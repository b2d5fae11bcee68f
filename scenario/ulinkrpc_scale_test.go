package scenario

import (
	"bytes"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// TestRPCScale generates a small ULinkRPC load capture over each transport
// and decodes it as the pipeline does (package rpc, no tshark): it must
// hold exactly the frames the mix counts, each kind and payload encoding
// as counted, every status, every Response and Pong paired, no finding
// above a note, the unanswered Requests pending; a Summary decode (what
// tables uses) must give the same tables.
func TestRPCScale(t *testing.T) {
	for _, tr := range []string{"tcp", "websocket", "kcp"} {
		t.Run(tr, func(t *testing.T) {
			var buf bytes.Buffer
			sc := RPCScale{Frames: 3001, Conns: 7, Seed: 5, Transport: tr}
			st, mix, err := sc.GenerateMix(&buf, PCAPNG)
			if err != nil {
				t.Fatal(err)
			}
			if st.Messages != 3001 || st.Conns != 7 {
				t.Fatalf("Stats = %+v; want 3001 frames over 7 connections", st)
			}
			if sum := mix.Requests + mix.Responses + mix.Pushes + mix.Pings + mix.Pongs; sum != 3001 {
				t.Fatalf("mix %+v adds up to %d frames; want 3001", mix, sum)
			}
			if mix.Requests == 0 || mix.Pushes == 0 || mix.Pings == 0 || mix.JSON == 0 || mix.MemoryPack == 0 || mix.Empty == 0 || mix.Errors == 0 || mix.Pending == 0 {
				t.Fatalf("mix %+v: a kind is missing", mix)
			}
			data := buf.Bytes()
			desc := &RPC{U: RPCSettings{Transport: tr}, Conns: []RPCConn{{}}}
			full := decodeRPC(t, desc, data, nil)
			if len(full) != 7 {
				t.Fatalf("%d ULinkRPC connections decoded; want 7", len(full))
			}
			var got RPCMix
			statuses := map[ulinkrpc.Status]int{}
			for _, s := range full {
				for _, f := range s.Findings() {
					if f.Severity > dissect.Note {
						t.Errorf("%s: connection finding %s %s", s.Conn(), f.Severity, f.Text)
					}
				}
				got.Pending += len(s.Tables().Pending)
				for _, r := range s.Records() {
					for _, f := range r.Findings {
						if f.Severity > dissect.Note {
							t.Fatalf("record %d (%s): %s %s", r.N, r.Msg, f.Severity, f.Text)
						}
					}
					switch r.Type {
					case ulinkrpc.Request:
						got.Requests++
					case ulinkrpc.Response:
						got.Responses++
						statuses[ulinkrpc.Status(*r.RPC.StatusCode)]++
						if *r.RPC.StatusCode != 0 {
							got.Errors++
						}
					case ulinkrpc.Push:
						got.Pushes++
					case ulinkrpc.KeepAlivePing:
						got.Pings++
					case ulinkrpc.KeepAlivePong:
						got.Pongs++
					}
					if (r.Type == ulinkrpc.Response || r.Type == ulinkrpc.KeepAlivePong) && r.Pair == 0 {
						t.Errorf("record %d (%s) is not paired", r.N, r.Msg)
					}
					if r.Payload != nil {
						switch r.Payload.Encoding {
						case ulinkrpc.EncodingJSON:
							got.JSON++
						case ulinkrpc.EncodingMemoryPack:
							got.MemoryPack++
						case ulinkrpc.EncodingEmpty:
							got.Empty++
						default:
							t.Errorf("record %d: payload %s", r.N, r.Payload.Encoding)
						}
					}
				}
			}
			if got != mix {
				t.Errorf("decoded %+v; generated %+v", got, mix)
			}
			for st := ulinkrpc.StatusOk; st <= ulinkrpc.StatusBadRequest; st++ {
				if statuses[st] == 0 {
					t.Errorf("no Response of status %s: %v", st, statuses)
				}
			}
		})
	}
}

// TestRPCScaleSeed: the same seed gives the same capture; another seed,
// another one.
func TestRPCScaleSeed(t *testing.T) {
	gen := func(seed uint64) []byte {
		var buf bytes.Buffer
		if _, err := (RPCScale{Frames: 500, Seed: seed}).Generate(&buf, PCAP); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	if !bytes.Equal(gen(3), gen(3)) {
		t.Error("two captures of seed 3 differ")
	}
	if bytes.Equal(gen(3), gen(4)) {
		t.Error("seeds 3 and 4 give the same capture")
	}
}

// TestRPCScaleErrors: what RPCScale refuses.
func TestRPCScaleErrors(t *testing.T) {
	for _, sc := range []RPCScale{{Frames: -1}, {Frames: 1, Transport: "udp"}, {Frames: 1, Link: "token-ring"}, {Frames: 1, Conns: 70000}} {
		if _, err := sc.Generate(&bytes.Buffer{}, PCAPNG); err == nil {
			t.Errorf("RPCScale%+v.Generate = nil error; want one", sc)
		}
	}
}
