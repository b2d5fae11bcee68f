package rpc

import (
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// TestInflatedOnDemand: a gzip frame inflating past the display cap keeps
// its compressed body and an error finding (issue 29), and its envelope is
// inflated again when the record is shown (Tree: the TUI's detail pane;
// TreeText: dump -V), at most the cap's bytes: the message's type and ids
// read from them. A frame within the cap shows its envelope as before.
func TestInflatedOnDemand(t *testing.T) {
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = '0' + byte(i%10)
	}
	const cap = 1 << 20
	env := ulinkrpc.EncodeRequest(77, 5, 9, big)
	s := New(testConn, Config{Transport: TCP, Transform: ulinkrpc.TransformConfig{Mode: ulinkrpc.On, KeepInflated: cap}})
	s.Bytes(dissect.C2S, wire(append([]byte{ulinkrpc.FlagGzip}, ulinkrpc.Gzip(env)...)), stamp(1, 0))
	small := ulinkrpc.EncodeRequest(78, 5, 9, []byte("{}"))
	s.Bytes(dissect.C2S, wire(append([]byte{ulinkrpc.FlagGzip}, ulinkrpc.Gzip(small)...)), stamp(2, 10))
	s.End(stamp(2, 20))
	rs := s.Records()
	if len(rs) != 2 {
		t.Fatalf("%d records; want 2", len(rs))
	}
	r := rs[0]
	if r.Envelope != nil {
		t.Fatalf("the capped record keeps a %d-byte envelope; want none (the compressed body only)", len(r.Envelope))
	}
	prefix, got, ok := Inflated(r)
	if !ok || len(prefix) != cap || got.Type != ulinkrpc.Request || got.RequestID != 77 {
		t.Errorf("Inflated = %d bytes, type %v, request id %d, %v; want %d bytes of Request 77", len(prefix), got.Type, got.RequestID, ok, cap)
	}
	text := TreeText(r)
	for _, want := range []string{"envelope: Request, the first 1048576 bytes inflated on demand (the frame inflates past the display cap of 1048576 bytes)", "= request_id: 77", "display cap"} {
		if !strings.Contains(text, want) {
			t.Errorf("TreeText of the capped record lacks %q:\n%.2000s", want, text)
		}
	}
	if _, _, ok := Inflated(rs[1]); ok {
		t.Errorf("Inflated of a record within the cap: ok; want false (its envelope is kept)")
	}
	if text := TreeText(rs[1]); !strings.Contains(text, "envelope: Request, 1") || strings.Contains(text, "on demand") {
		t.Errorf("TreeText of the record within the cap:\n%s", text)
	}
}
