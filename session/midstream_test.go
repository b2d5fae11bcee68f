package session

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestOpenWithoutSYN: a flow opened under a rule other than "syn" was joined
// mid-connection (wire.md 2), here one byte into a frame header, the
// fixture author's `cut = 1` case. Its framers resynchronise from the first
// byte: the cut message is reported as skipped bytes, the rest decode, and
// each message keeps the time and frame of the chunk that held its last
// byte even when resynchronisation releases it later.
func TestOpenWithoutSYN(t *testing.T) {
	msgs := [][]byte{
		cvS2C(true, 1, 2, cvMap, 1, 0x0b), // cut: its first header byte is not captured
		cvS2C(true, 0, 2, cvChat, 1, 0x0a),
		cvS2C(false, 0, 0, "", 0, 0x0c),
		cvS2C(false, 1, 0, "", 0, 0x0d),
		cvS2C(false, 0, 0, "", 0, 0x0e),
	}
	for _, tc := range []struct {
		rule  Rule
		skip  int // bytes skipped by resynchronisation
		first int // index in msgs of the first decoded message
	}{
		{RulePort, 2 + len(msgs[0]) - 1, 1},
		{RuleLowerPort, 2 + len(msgs[0]) - 1, 1},
	} {
		c := NewIndex(nil)
		c.Open(cvConn, tc.rule, cvT0, 1)
		at := func(i int) time.Time { return cvT0.Add(time.Duration(i+1) * time.Millisecond) }
		for i, m := range msgs {
			b := cvFrame(m)
			if i == 0 {
				b = b[1:]
			}
			c.Data(cvConn, dissect.S2C, b, at(i), i+2)
		}
		c.Finish()
		if got, want := c.Len(), len(msgs)-tc.first; got != want {
			t.Fatalf("rule %q: Len() = %d; want %d", tc.rule, got, want)
		}
		for n := 1; n <= c.Len(); n++ {
			m := c.Message(n)
			i := tc.first + n - 1
			if m.Name() != "InvokeMessageListener" || m.Frame != i+2 || !m.Time.Equal(at(i)) {
				t.Errorf("rule %q: message %d = %v frame %d at %v; want an invoke from frame %d at %v", tc.rule, n, m.Name(), m.Frame, m.Time, i+2, at(i))
			}
		}
		ci := c.Connections()[0]
		want := "resync: skipped " + strconv.Itoa(tc.skip) + " bytes at stream offset 0"
		found := false
		for _, f := range ci.Findings {
			found = found || strings.Contains(f.Text, want)
		}
		if !found {
			t.Errorf("rule %q: connection findings %+v; want one containing %q", tc.rule, ci.Findings, want)
		}
	}
}

// TestOpenWithSYN: under "syn" (and for Data without Open) the stream starts
// at a message boundary and frames at once, with no resynchronisation.
func TestOpenWithSYN(t *testing.T) {
	for _, rule := range []Rule{RuleSYN, RuleUnknown} {
		c := NewIndex(nil)
		c.Open(cvConn, rule, cvT0, 1)
		c.Data(cvConn, dissect.S2C, cvFrame(cvS2C(true, 0, 0, cvChat, 1, 0x0a)), cvT0, 2)
		if c.Len() != 1 {
			t.Errorf("rule %q: Len() after one whole message = %d; want 1", rule, c.Len())
		}
	}
}

// TestReadingScoreWidenedAtVanilla: the message author's case. A widened
// S→C invoke read at vanilla width can come out as a legacy
// UPDATE_RELIABLE_BUFFER whose pad bits are not zero: only a warning, so
// Decoded.Clean alone would not reject it; the inference's unturned.ReadingScore
// gives any warn-or-worse reading 0, so the widened reading (score 2) wins.
func TestReadingScoreWidenedAtVanilla(t *testing.T) {
	p := unturned.Default()
	for _, msg := range [][]byte{
		cvS2C(false, 0, 0, "", 0, 0x0a),
		cvS2C(false, 1, 2, "", 0, 0x0e),
		cvS2C(true, 1, 2, cvMap, 1, 0x0b),
	} {
		var v, w unturned.Decoded
		unturned.Decode(p, dissect.S2C, unturned.State{IDBits: 2, IDKnown: true}, msg, nil, &v)
		unturned.Decode(p, dissect.S2C, unturned.State{Widened: true, IDBits: 2, IDKnown: true}, msg, nil, &w)
		if w.Kind != unturned.KindInvokeMessageListener || unturned.ReadingScore(&w) != 2 {
			t.Errorf("widened reading of % x = %v score %d; want InvokeMessageListener score 2", msg, w.Kind, unturned.ReadingScore(&w))
		}
		t.Logf("vanilla reading of % x: %v, %d findings, score %d", msg, v.Kind, len(v.Findings), unturned.ReadingScore(&v))
		if sv := unturned.ReadingScore(&v); sv >= unturned.ReadingScore(&w) {
			t.Errorf("vanilla reading of % x = %v (findings %+v) score %d; want below the widened reading's", msg, v.Kind, v.Findings, sv)
		}
	}
}
