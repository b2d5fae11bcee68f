package session_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// mixedPairs are an Unturned and a ULinkRPC fixture capture merged into
// one (mixCaptures): resynchronising directions of both protocols, KCP,
// WebSocket and several connections.
var mixedPairs = [][2]string{
	{"usmn-midstream", "tcp-midstream"},
	{"usmn-basic", "kcp-json"},
	{"two-conns", "websocket-json"},
	{"usmn-midframe", "tcp-json"},
}

// mixCaptures interleaves the packets of two captures of one link type by
// how far into its own capture each packet is, and gives them times 1 ms
// apart in that order: a capture where both protocols talk at once.
func mixCaptures(t *testing.T, a, b string) ([][]byte, []gopacket.CaptureInfo, layers.LinkType) {
	t.Helper()
	pa, ca, lta := packets(t, a)
	pb, cb, ltb := packets(t, b)
	if lta != ltb {
		t.Fatalf("%s and %s: link types %v and %v", a, b, lta, ltb)
	}
	type item struct {
		at   float64
		pkt  []byte
		info gopacket.CaptureInfo
	}
	var items []item
	for i := range pa {
		items = append(items, item{float64(i) / float64(len(pa)), pa[i], ca[i]})
	}
	for i := range pb {
		items = append(items, item{(float64(i) + 0.5) / float64(len(pb)), pb[i], cb[i]})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].at < items[j].at })
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	pkts := make([][]byte, len(items))
	cis := make([]gopacket.CaptureInfo, len(items))
	for i, it := range items {
		pkts[i], cis[i] = it.pkt, it.info
		cis[i].Timestamp = t0.Add(time.Duration(i) * time.Millisecond)
	}
	return pkts, cis, lta
}

// decodeMixed writes packets k… as a classic pcap and decodes both
// protocols into an Index, streaming when st is not nil.
func decodeMixed(t *testing.T, pkts [][]byte, cis []gopacket.CaptureInfo, lt layers.LinkType, k int, st func(*session.Index) session.Stream) *session.Index {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgo.NewWriterNanos(&buf)
	if err := w.WriteFileHeader(262144, lt); err != nil {
		t.Fatal(err)
	}
	for i := k; i < len(pkts); i++ {
		if err := w.WritePacket(cis[i], pkts[i]); err != nil {
			t.Fatal(err)
		}
	}
	p := unturned.Default()
	rp := pipeline.NewRPC(rpc.Config{})
	src, err := capture.NewReader(bytes.NewReader(buf.Bytes()), "mixed.pcap", capture.Options{TransportPort: p.TransportPort, QueryPort: p.QueryPort, DatagramPorts: rp.DatagramPorts("")})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ix := session.NewIndex(p)
	if st != nil {
		ix.SetStream(st(ix))
	}
	if err := pipeline.FeedRPC(src, ix, rp, nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestOrderInvariantMixed (outputs.md "Ordering", issue 15): an Unturned
// and a ULinkRPC capture merged into one, cut at every packet boundary,
// number the messages of both protocols densely from 1 in one sequence;
// frame and time never decrease as n grows; every ULinkRPC answer comes
// after its asker and both carry each other's n; and the streaming index
// hands out the same messages in the same order with the same dump --json
// lines as the full one.
func TestOrderInvariantMixed(t *testing.T) {
	for _, pair := range mixedPairs {
		pkts, cis, lt := mixCaptures(t, filepath.Join("../fixtures/captures", pair[0]+".pcapng"), filepath.Join("../fixtures/ulinkrpc", pair[1]+".pcapng"))
		for k := range pkts {
			name := fmt.Sprintf("%s+%s from packet %d", pair[0], pair[1], k+1)
			ix := decodeMixed(t, pkts, cis, lt, k, nil)
			var protos [2]int
			prevFrame, prevTime := 0, int64(0)
			for n := 1; n <= ix.Len(); n++ {
				m := ix.Message(n)
				if m == nil || m.N != n {
					t.Fatalf("%s: message %d missing or numbered %v", name, n, m)
				}
				if m.Frame < prevFrame || m.Time.UnixNano() < prevTime {
					t.Fatalf("%s: message %d frame %d at %v after frame %d at %v", name, n, m.Frame, m.Time.UnixNano(), prevFrame, prevTime)
				}
				prevFrame, prevTime = m.Frame, m.Time.UnixNano()
				if rpcOf(m.Rec) == nil {
					protos[0]++
					continue
				}
				protos[1]++
				if rpcOf(m.Rec).N != n || m.Pair != rpcOf(m.Rec).Pair {
					t.Fatalf("%s: message %d carries record %d, pair %d of %d", name, n, rpcOf(m.Rec).N, m.Pair, rpcOf(m.Rec).Pair)
				}
				if m.HasLatency {
					ask := ix.Message(m.Pair)
					if m.Pair >= n || ask == nil || ask.Rec == nil || ask.Pair != n {
						t.Fatalf("%s: answer %d pairs with %d, which pairs with %v", name, n, m.Pair, ask)
					}
				}
			}
			if k == 0 {
				t.Logf("%s: %d packets, %d Unturned and %d ULinkRPC messages", name, len(pkts), protos[0], protos[1])
			}
			if k == 0 && (protos[0] == 0 || protos[1] == 0) {
				t.Fatalf("%s: %d Unturned and %d ULinkRPC messages; want both", name, protos[0], protos[1])
			}
			want := ix.AppendJSONRange(nil, 1, ix.Len(), nil)
			var o inOrder
			sx := decodeMixed(t, pkts, cis, lt, k, o.stream)
			got := o.got
			if err := sx.StreamErr(); err != nil || o.next != ix.Len()+1 {
				t.Fatalf("%s: stream: %v, handed out %d of %d", name, err, o.next-1, ix.Len())
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: the stream's dump --json differs from the full index's:\n%s\nwant:\n%s", name, got, want)
			}
		}
	}
}
