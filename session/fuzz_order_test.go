package session

import (
	"net/netip"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// FuzzMidstream feeds two connections joined mid-stream (no SYN) with
// chunks of arbitrary bytes in both directions, gaps and closes: the
// entry points of numbering by arrival and of both inferences. Messages
// are numbered densely, frames never decrease as n grows (outputs.md
// "Ordering"), Settled never decreases, and everything settles at Finish.
// Input: records of [ctl, n, n bytes…]; ctl bit 0 the direction, bit 1 the
// connection, bit 2 a gap of n bytes instead of data, bit 3 a close.
func FuzzMidstream(f *testing.F) {
	minimal := []byte{0, 5, 0x0f, 0xa0, 0x11, 0x22, 0x33, 1, 3, 0x01, 0x02, 0x03}
	for i := 0; i < 30; i++ {
		minimal = append(minimal, 0, 3, 0x00, 0x01, 0x04, 1, 3, 0x00, 0x01, 0x03)
	}
	f.Add(minimal)
	var ids []byte
	for _, m := range [][]byte{
		cvS2C(false, 5, 3, "", 0, 0x0a), cvBySID(5, 3, 0x0b),
		cvNegotiate(dissect.S2C, unturned.TellClientListenerID, 7001, 5, 3, cvChat, 1),
		cvNegotiate(dissect.C2S, unturned.TellServerMissingListener, 0, 19, 5, "", 0),
		cvS2C(true, 9, 4, cvMap, 1, 0x01),
	} {
		fr := cvFrame(m)
		dir := byte(1)
		if m[0]&1 == 0 {
			dir = 0
		}
		ids = append(ids, dir|2, byte(len(fr)))
		ids = append(ids, fr...)
	}
	f.Add(ids)
	f.Add([]byte{1, 2, 0x10, 0x00, 4, 9, 0, 3, 0, 1, 4, 8, 0})
	conns := [2]dissect.Conn{
		{Client: netip.MustParseAddrPort("11.0.0.1:1024"), Server: netip.MustParseAddrPort("10.0.0.1:27016")},
		{Client: netip.MustParseAddrPort("11.0.0.2:1025"), Server: netip.MustParseAddrPort("10.0.0.1:27016")},
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, in []byte) {
		c := NewIndexLimits(nil, unturned.Limits{InferWindow: 4, CheckpointEvery: 4, MaxUnresolved: 16, MaxEntries: 16})
		for _, cn := range conns {
			c.Open(cn, RulePort, t0, 1)
		}
		prev := 0
		for frame := 1; len(in) >= 2; frame++ {
			ctl, n := in[0], int(in[1])
			in = in[2:]
			dir, cn, at := dissect.Dir(ctl&1), conns[ctl>>1&1], t0.Add(time.Duration(frame)*time.Microsecond)
			switch {
			case ctl&8 != 0:
				c.Close(cn, at, frame)
				continue
			case ctl&4 != 0:
				c.Gap(cn, dir, n, at, frame)
				continue
			}
			n = min(n, len(in))
			c.Data(cn, dir, in[:n], at, frame)
			in = in[n:]
			s := c.Settled()
			if s < prev || s > c.Len() {
				t.Fatalf("Settled() = %d after %d, Len %d", s, prev, c.Len())
			}
			prev = s
		}
		c.Finish()
		if c.Settled() != c.Len() {
			t.Fatalf("after Finish Settled() = %d, Len %d", c.Settled(), c.Len())
		}
		last := 0
		for n := 1; n <= c.Len(); n++ {
			m := c.Message(n)
			if m == nil || m.N != n || m.Frame < last {
				t.Fatalf("message %d: %+v after frame %d", n, m, last)
			}
			last = m.Frame
		}
	})
}

// FuzzInferIDBits: the pure inference never panics, decides a count within
// the candidates, and a confidence within [0, 1] (0 when no count reads
// the messages).
func FuzzInferIDBits(f *testing.F) {
	f.Add(cvNegotiate(dissect.S2C, unturned.TellClientListenerID, 7001, 5, 3, cvChat, 1), cvBySID(5, 3, 0x0b), byte(3))
	f.Add(cvNegotiate(dissect.C2S, unturned.TellServerMissingListener, 0, 19, 5, "", 0), cvS2C(false, 19, 5, "", 0, 1), byte(0))
	f.Add([]byte{}, []byte{0xff}, byte(1))
	f.Fuzz(func(t *testing.T, a, b []byte, ctl byte) {
		msgs := []unturned.IDMessage{
			{Dir: dissect.Dir(ctl & 1), Widened: ctl&2 != 0, Data: a},
			{Dir: dissect.Dir(ctl >> 2 & 1), Widened: ctl&8 != 0, Data: b},
		}
		v := unturned.InferIDBits(nil, msgs, ctl&16 != 0)
		if v.Decided && (v.Bits < 0 || v.Bits > 31 || v.Confidence < 0 || v.Confidence > 1) {
			t.Fatalf("InferIDBits = %+v", v)
		}
		if v.Relevant > len(msgs) || len(v.Deciding) > v.Relevant {
			t.Fatalf("InferIDBits = %+v for %d messages", v, len(msgs))
		}
	})
}
