package kcp

import (
	"bytes"
	"testing"
)

// FuzzDatagram: parsing round-trips and the reassembler stays bounded
// (the committed corpus, testdata/fuzz/FuzzDatagram, holds a datagram of
// three PUSH segments, an ACK and bytes that are no segment).
func FuzzDatagram(f *testing.F) {
	segs, _ := segments(7, messages(4), 16)
	var dgram []byte
	for _, s := range segs[:3] {
		dgram = EncodeSegment(dgram, s)
	}
	f.Add(dgram)
	f.Add(EncodeSegment(nil, Segment{Conv: 7, Cmd: CmdAck, Sn: 1}))
	f.Fuzz(func(t *testing.T, b []byte) {
		segs, err := ParseDatagram(b)
		if err == nil {
			var again []byte
			for _, s := range segs {
				again = EncodeSegment(again, s)
			}
			if !bytes.Equal(again, b) {
				t.Fatalf("re-encoded %x = %x", b, again)
			}
		}
		r := NewReassembler(Config{MaxSegments: 4, MaxConvData: 256, MaxData: 512, MaxConvs: 4})
		// Each message arrived with a datagram fed so far, and none is
		// held past Abandon or End.
		yield := func(m Message) {
			if m.Datagram < 1 || m.Datagram > r.Datagrams() {
				t.Fatalf("a message of datagram %d after %d datagrams", m.Datagram, r.Datagrams())
			}
		}
		for i := range 3 {
			r.Datagram(b, yield)
			if r.Held() > 512+len(b) {
				t.Fatalf("held %d", r.Held())
			}
			if first, ok := r.Holding(); ok && (first < 1 || first > r.Datagrams() || !r.HoldsFrom(first)) {
				t.Fatalf("Holding() = %d after %d datagrams", first, r.Datagrams())
			}
			if i == 1 {
				r.Abandon("for the fuzzer", yield)
				if _, ok := r.Holding(); ok {
					t.Fatal("holding after Abandon")
				}
			}
		}
		r.End(yield)
		if _, ok := r.Holding(); ok || r.Held() != 0 {
			t.Fatalf("holding %v, %d bytes held after End", ok, r.Held())
		}
	})
}
