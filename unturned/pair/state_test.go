package pair

import (
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// msg is one message of a pairing script: its direction and decoding,
// numbered by its place (from 1), at its number in milliseconds.
type msg struct {
	dir dissect.Dir
	d   unturned.Decoded
}

func ping(dir dissect.Dir, answer bool) msg {
	k := map[[2]bool]unturned.Kind{
		{false, false}: unturned.KindServerPingRequest, {false, true}: unturned.KindServerPingResponse,
		{true, false}: unturned.KindClientPingRequest, {true, true}: unturned.KindClientPingResponse,
	}[[2]bool{dir == dissect.S2C, answer}]
	return msg{dir, unturned.Decoded{Kind: k}}
}

func negotiate(dir dissect.Dir, mode unturned.NegotiateMode, cid uint32, clean bool) msg {
	d := unturned.Decoded{Kind: unturned.KindNegotiateListenerDetails, Negotiate: unturned.Negotiate{Mode: mode, ClientID: cid}}
	if !clean {
		d.Findings = []dissect.Finding{{Severity: dissect.Error, Text: "garbage"}}
	}
	return msg{dir, d}
}

func zero() int64 { return 0 }

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// TestMessage: what State.Message makes of each message of a script.
func TestMessage(t *testing.T) {
	req := negotiate(dissect.C2S, unturned.RequestServerListenerID, 7, true)
	tell := negotiate(dissect.S2C, unturned.TellClientListenerID, 7, true)
	for _, tt := range []struct {
		name   string
		script []msg
		want   []Step
	}{
		{"ping answered", []msg{ping(dissect.C2S, false), ping(dissect.S2C, true)},
			[]Step{{Role: Asker, Ping: true}, {Role: Answer, Ping: true, Asker: 1, Latency: ms(1)}}},
		{"response in the asker's direction", []msg{ping(dissect.C2S, false), ping(dissect.C2S, true)},
			[]Step{{Role: Asker, Ping: true}, {}}},
		{"oldest ping first", []msg{ping(dissect.S2C, false), ping(dissect.S2C, false), ping(dissect.C2S, true), ping(dissect.C2S, true), ping(dissect.C2S, true)},
			[]Step{{Role: Asker, Ping: true}, {Role: Asker, Ping: true}, {Role: Answer, Ping: true, Asker: 1, Latency: ms(2)}, {Role: Answer, Ping: true, Asker: 2, Latency: ms(2)}, {}}},
		{"listener ID", []msg{req, tell, tell},
			[]Step{{Role: Asker}, {Role: Answer, Asker: 1, Latency: ms(1)}, {}}},
		{"missing listener answers", []msg{req, negotiate(dissect.S2C, unturned.TellClientMissingListener, 7, true)},
			[]Step{{Role: Asker}, {Role: Answer, Asker: 1, Latency: ms(1)}}},
		{"other ID", []msg{req, negotiate(dissect.S2C, unturned.TellClientListenerID, 8, true)},
			[]Step{{Role: Asker}, {}}},
		{"garbled request", []msg{negotiate(dissect.C2S, unturned.RequestServerListenerID, 7, false), tell},
			[]Step{{}, {}}},
	} {
		s := New(true)
		for k, m := range tt.script {
			n := int32(k + 1)
			if got := s.Message(n, m.dir, &m.d, func() int64 { return int64(ms(k + 1)) }); got != tt.want[k] {
				t.Errorf("%s: message %d: %+v; want %+v", tt.name, n, got, tt.want[k])
			}
		}
	}
}

// TestHold: an answer pairs with an asker at most Hold messages before
// it; an older one is forgotten, and Final says so.
func TestHold(t *testing.T) {
	for _, tt := range []struct {
		gap  int32
		want Role
	}{{Hold, Answer}, {Hold + 1, None}} {
		s := New(false)
		q := ping(dissect.C2S, false)
		s.Message(1, q.dir, &q.d, zero)
		a := ping(dissect.S2C, true)
		if got := s.Message(1+tt.gap, a.dir, &a.d, zero).Role; got != tt.want {
			t.Errorf("answer %d after: %v; want %v", tt.gap, got, tt.want)
		}
		if n := s.Open(); n != 0 {
			t.Errorf("answer %d after: %d askers open; want 0", tt.gap, n)
		}
	}
	s := New(false)
	q := ping(dissect.C2S, false)
	s.Message(1, q.dir, &q.d, zero)
	if s.Final(1, Hold, true) || !s.Final(1, Hold+1, true) || s.Final(1, Hold+1, false) {
		t.Errorf("Final before, at and past the bound: %v %v %v; want false true false", s.Final(1, Hold, true), s.Final(1, Hold+1, true), s.Final(1, Hold+1, false))
	}
	if s.OldestOpen() != 1 {
		t.Errorf("OldestOpen = %d; want 1", s.OldestOpen())
	}
	s.GiveUp()
	if s.OldestOpen() != 0 || !s.Final(1, 1, false) {
		t.Errorf("after GiveUp: OldestOpen %d, Final %v; want 0, true", s.OldestOpen(), s.Final(1, 1, false))
	}
	var none *State
	if !none.Final(1, 1, false) || none.OldestOpen() != 0 || none.Open() != 0 {
		t.Error("a nil State has an asker")
	}
}

// TestLinks: a negotiate pair kept on both sides, or on the answer's only.
func TestLinks(t *testing.T) {
	s := New(true)
	s.Link(4, 9, ms(5), true)
	s.Link(2, 3, ms(1), false)
	for _, tt := range []struct {
		idx  int32
		want Link
		ok   bool
	}{
		{2, Link{}, false},
		{3, Link{Idx: 3, Partner: 2, Answer: true, Latency: ms(1)}, true},
		{4, Link{Idx: 4, Partner: 9}, true},
		{9, Link{Idx: 9, Partner: 4, Answer: true, Latency: ms(5)}, true},
	} {
		if got, ok := s.LinkOf(tt.idx); got != tt.want || ok != tt.ok {
			t.Errorf("LinkOf(%d) = %+v, %v; want %+v, %v", tt.idx, got, ok, tt.want, tt.ok)
		}
	}
	s.Unlink(4)
	if _, ok := s.LinkOf(4); ok {
		t.Error("LinkOf(4) after Unlink: still there")
	}
}

func TestRoleString(t *testing.T) {
	for r, want := range map[Role]string{None: "none", Asker: "asker", Answer: "answer", 9: "Unknown(9)"} {
		if got := r.String(); got != want {
			t.Errorf("Role(%d).String() = %q; want %q", r, got, want)
		}
	}
}
