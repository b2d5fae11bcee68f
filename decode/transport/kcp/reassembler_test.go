package kcp

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
)

// messages are n messages of various lengths.
func messages(n int) [][]byte {
	var ms [][]byte
	for i := range n {
		ms = append(ms, []byte(fmt.Sprintf("message %d %s", i, strings.Repeat("x", 5*i))))
	}
	return ms
}

func findingTexts(fs []dissect.Finding) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.Text)
	}
	return strings.Join(s, "\n")
}

// segments splits messages into segments of at most mss data bytes, and
// returns them with the messages' bytes one after the other.
func segments(conv uint32, msgs [][]byte, mss int) ([]Segment, []byte) {
	var segs []Segment
	var stream []byte
	sn := uint32(0)
	for _, msg := range msgs {
		stream = append(stream, msg...)
		s := SplitMessage(conv, sn, msg, mss)
		sn += uint32(len(s))
		segs = append(segs, s...)
	}
	return segs, stream
}

func TestReassembler(t *testing.T) {
	msgs := messages(6)
	segs, stream := segments(7, msgs, 8)
	order := func(perm func(i int) int) []Segment {
		out := make([]Segment, len(segs))
		for i := range segs {
			out[i] = segs[perm(i)]
		}
		return out
	}
	n := len(segs)
	tests := []struct {
		name string
		in   []Segment
	}{
		{"in order", segs},
		{"reversed", order(func(i int) int { return n - 1 - i })},
		{"swapped pairs", order(func(i int) int { return i ^ 1%n })},
		{"retransmitted", append(append([]Segment(nil), segs[:5]...), segs...)},
	}
	for _, tt := range tests {
		r := NewReassembler(Config{})
		r.Start(7)
		var got []byte
		var dg []byte
		for _, s := range tt.in {
			dg = EncodeSegment(dg[:0], s)
			r.Datagram(dg, func(m Message) { got = append(got, m.Data...) })
		}
		r.Datagram(EncodeSegment(nil, Segment{Conv: 7, Cmd: CmdAck, Sn: 3}), nil)
		fs := r.End(nil)
		if !bytes.Equal(got, stream) || len(fs) != 0 {
			t.Errorf("%s: %d bytes (want %d), findings %v", tt.name, len(got), len(stream), fs)
		}
		c := r.Counts(7)
		if c.Messages != int64(len(msgs)) || c.Ack != 1 || r.Held() != 0 {
			t.Errorf("%s: counts %+v held %d", tt.name, c, r.Held())
		}
	}
}

func TestReassemblerGap(t *testing.T) {
	in := messages(4)
	segs, _ := segments(7, in, 8)
	r := NewReassembler(Config{MaxSegments: 8})
	r.Start(7)
	var msgs []Message
	for i, s := range segs {
		if i == 1 {
			continue // lose sn 1, inside the first message
		}
		r.Segment(s, func(m Message) { m.Data = bytes.Clone(m.Data); msgs = append(msgs, m) })
	}
	fs := r.End(nil)
	if len(msgs) != len(in)-1 || !msgs[0].Gap || !bytes.Equal(msgs[0].Data, in[1]) {
		t.Errorf("gap: %d messages, first %+v", len(msgs), msgs)
	}
	if len(fs) != 1 || !strings.HasPrefix(fs[0].Text, "kcp: conv 7: gap in sn: 1 segments missing from sn 1 (too much held behind it), a partial message of 1 fragments dropped") {
		t.Errorf("gap findings = %v", findingTexts(fs))
	}
}

// A hostile stream cannot make the reassembler hold more than its bounds.
func TestReassemblerBounds(t *testing.T) {
	r := NewReassembler(Config{MaxConvs: 4, MaxSegments: 16, MaxConvData: 4096, MaxData: 8192})
	data := make([]byte, 1000)
	for i := range 2000 {
		s := Segment{Conv: uint32(i % 7), Cmd: CmdPush, Frg: 3, Sn: uint32(i*7 + 1), Data: data}
		r.Segment(s, nil)
		if r.Held() > 8192+1000 {
			t.Fatalf("held %d bytes after %d segments", r.Held(), i)
		}
	}
	r.End(nil)
	if r.Held() != 0 {
		t.Errorf("held %d bytes after End", r.Held())
	}
}

// TestReassemblerHolding: Holding names the earliest
// datagram (counted from 1) that brought a segment held behind a missing
// sn, exactly while one is held, and each message carries the datagram
// after which it can be delivered (Datagram), however late it is handed
// on: the one that brought the last of its segments or filled the gap
// before it, whichever came later (issue 24: a message behind a hole
// arrives with the datagram that fills it); at a skip (Abandon, End) the
// latest of its own and its predecessors'. Steps are
// datagrams of segments conv/sn/frg (nil is Abandon, which is no
// datagram); after each, the earliest datagram held ("-" for none) and the
// messages yielded, as conv/FirstSn@Datagram, with "!" for Gap.
func TestReassemblerHolding(t *testing.T) {
	type seg struct {
		conv, sn uint32
		frg      uint8
	}
	tests := []struct {
		name  string
		steps [][]seg // nil: Abandon
		want  []string
		end   string // End's messages
	}{
		{"in order", [][]seg{{{7, 0, 0}}, {{7, 1, 1}}, {{7, 2, 0}}},
			[]string{"- [7/0@1]", "- []", "- [7/1@3]"}, "[]"},
		{"held until the gap fills", [][]seg{{{7, 1, 0}}, {{7, 2, 0}}, {{7, 0, 0}}},
			[]string{"1 []", "1 []", "- [7/0@3 7/1@3 7/2@3]"}, "[]"},
		{"the earliest still held", [][]seg{{{7, 1, 0}}, {{7, 3, 0}}, {{7, 0, 0}}},
			[]string{"1 []", "1 []", "2 [7/0@3 7/1@3]"}, "[7/3@3!]"},
		{"a message by its last segment to come", [][]seg{{{7, 2, 0}}, {{7, 1, 1}}, {{7, 0, 0}}},
			[]string{"1 []", "1 []", "- [7/0@3 7/1@3]"}, "[]"},
		{"one datagram of several segments", [][]seg{{{7, 2, 0}, {7, 1, 1}}, {{7, 0, 0}}},
			[]string{"1 []", "- [7/0@2 7/1@2]"}, "[]"},
		{"a ping filling the gap before a Request that came first (issue 24)", [][]seg{{{7, 0, 0}}, {{7, 2, 0}}, {{7, 1, 0}}},
			[]string{"- [7/0@1]", "2 []", "- [7/1@3 7/2@3]"}, "[]"},
		{"a skipped gap: its own datagram, never below its predecessor's", [][]seg{{{7, 2, 0}}, {{7, 1, 0}}, nil},
			[]string{"1 []", "1 []", "- [7/1@2! 7/2@2]"}, "[]"},
		{"a retransmission keeps its first datagram", [][]seg{{{7, 1, 0}}, {{7, 1, 0}}},
			[]string{"1 []", "1 []"}, "[7/1@1!]"},
		{"Abandon skips the gaps", [][]seg{{{7, 1, 0}}, {{7, 3, 1}}, nil, {{7, 4, 0}}, {{7, 0, 0}}},
			[]string{"1 []", "1 []", "- [7/1@1!]", "- [7/3@3!]", "- []"}, "[]"},
		{"a datagram let go between two held", [][]seg{{{7, 1, 0}}, {{8, 5, 0}}, {{8, 7, 0}}, {{8, 6, 0}}, {{8, 9, 0}}},
			[]string{"1 []", "1 [8/5@2]", "1 []", "1 [8/6@4 8/7@4]", "1 []"}, "[7/1@1! 8/9@5!]"},
	}
	for _, tt := range tests {
		r := NewReassembler(Config{})
		r.Start(7)
		var msgs []string
		yield := func(m Message) {
			gap := ""
			if m.Gap {
				gap = "!"
			}
			msgs = append(msgs, fmt.Sprintf("%d/%d@%d%s", m.Conv, m.FirstSn, m.Datagram, gap))
		}
		for i, step := range tt.steps {
			msgs = nil
			if step == nil {
				r.Abandon("for the test", yield)
			} else {
				var dg []byte
				for _, s := range step {
					dg = EncodeSegment(dg, Segment{Conv: s.conv, Cmd: CmdPush, Frg: s.frg, Sn: s.sn, Data: []byte{byte(s.sn)}})
				}
				r.Datagram(dg, yield)
			}
			held := "-"
			if first, ok := r.Holding(); ok {
				held = fmt.Sprint(first)
			}
			if got := held + " " + fmt.Sprint(msgs); got != tt.want[i] {
				t.Errorf("%s: after step %d: Holding, messages = %s; want %s", tt.name, i+1, got, tt.want[i])
			}
		}
		msgs = nil
		r.End(yield)
		if _, ok := r.Holding(); ok || fmt.Sprint(msgs) != tt.end {
			t.Errorf("%s: End: holding %v, messages %v; want false, %s", tt.name, ok, msgs, tt.end)
		}
	}
}

// TestManyFragmentsWarnOnce: a message of 139 fragments (frg 138 down
// to 0; the sender drops those past 128) is one warning, not one per
// segment with frg >= 128, in order or not, retransmitted or not; a second
// such message is warned of again (issue 29 point 5).
func TestManyFragmentsWarnOnce(t *testing.T) {
	for _, order := range []string{"in order", "reversed"} {
		r := NewReassembler(Config{})
		r.Start(9)
		var msgs []Message
		yield := func(m Message) { msgs = append(msgs, m) }
		for msg := range 2 {
			base := uint32(msg * 139)
			sns := make([]uint32, 139)
			for i := range sns {
				sns[i] = uint32(i)
				if order == "reversed" && msg == 1 {
					sns[i] = uint32(138 - i)
				}
			}
			for _, i := range sns {
				seg := Segment{Conv: 9, Cmd: CmdPush, Frg: uint8(138 - i), Sn: base + i, Data: []byte{byte(i)}}
				r.Datagram(EncodeSegment(nil, seg), yield)
				if i%50 == 0 {
					r.Datagram(EncodeSegment(nil, seg), yield) // a retransmission
				}
			}
		}
		n := 0
		for _, f := range r.Findings() {
			if strings.Contains(f.Text, "a message of more than 128 fragments") {
				n++
			}
		}
		if n != 2 || len(msgs) != 2 || msgs[0].Fragments != 139 {
			t.Errorf("%s: %d warnings, %d messages; want 2 warnings (one a message), 2 messages of 139 fragments", order, n, len(msgs))
		}
	}
}

// budget is a toy shared allowance.
type budget struct{ max, used int }

func (b *budget) Grow(n int)     { b.used += n }
func (b *budget) Over() bool     { return b.used > b.max }
func (b *budget) Reason() string { return fmt.Sprintf("past the toy budget of %d bytes", b.max) }

// TestReassemblerBudget: reassemblers sharing a Budget skip a gap when
// what they hold behind it takes the Budget past its bound, and drop a
// partial message growing past it (its other fragments dropped as they
// arrive), each with the Budget's reason; End gives everything back.
func TestReassemblerBudget(t *testing.T) {
	b := &budget{max: 100}
	r1, r2 := NewReassembler(Config{Budget: b}), NewReassembler(Config{Budget: b})
	r1.Start(1)
	r2.Start(2)
	data := bytes.Repeat([]byte("d"), 30)
	for sn := uint32(1); sn <= 3; sn++ { // sn 0 missing: held
		r1.Segment(Segment{Conv: 1, Cmd: CmdPush, Sn: sn, Data: data}, nil)
	}
	var got []int
	r2.Segment(Segment{Conv: 2, Cmd: CmdPush, Sn: 1, Data: data}, func(m Message) { got = append(got, len(m.Data)) })
	want := "kcp: conv 2: gap in sn: 1 segments missing from sn 0 (what is held behind it is past the toy budget of 100 bytes)"
	if fs := findingTexts(r2.Findings()); fs != want || fmt.Sprint(got) != "[30]" {
		t.Errorf("past the budget: findings %q, messages %v; want %q, [30]", fs, got, want)
	}
	r3 := NewReassembler(Config{Budget: b})
	got = nil
	for sn := uint32(0); sn < 4; sn++ {
		r3.Segment(Segment{Conv: 3, Cmd: CmdPush, Sn: sn, Frg: uint8(3 - sn), Data: data}, func(m Message) { got = append(got, len(m.Data)) })
	}
	r3.Segment(Segment{Conv: 3, Cmd: CmdPush, Sn: 4, Data: data}, func(m Message) { got = append(got, len(m.Data)) })
	want = "kcp: conv 3: a partial message of 1 fragments (30 bytes) from sn 0 dropped past the toy budget of 100 bytes; its other 3 fragments are dropped as they arrive"
	if fs := findingTexts(r3.Findings()); fs != want || fmt.Sprint(got) != "[30]" {
		t.Errorf("a partial message past the budget: findings %q, messages %v; want %q, [30] (the next message)", fs, got, want)
	}
	for _, r := range []*Reassembler{r1, r2, r3} {
		r.End(nil)
	}
	if b.used != 0 {
		t.Errorf("the budget holds %d bytes after End; want 0", b.used)
	}
}

// TestReassemblerFindings: what a reassembler says of odd segments, a
// parse error with the protocol's prefix.
func TestReassemblerFindings(t *testing.T) {
	tests := []struct {
		name   string
		prefix string
		segs   []Segment
		raw    []byte
		want   string
	}{
		{"a cut datagram", "", nil, vecSegment[:10], "kcp: ts: need 4 bytes at byte 8, have 2"},
		{"a cut datagram, prefixed", "toy ", nil, vecSegment[:10], "toy kcp: ts: need 4 bytes at byte 8, have 2"},
		{"an ACK with data", "", []Segment{{Conv: 1, Cmd: CmdAck, Data: []byte("x")}}, nil, "kcp: conv 1: ACK segment with 1 data bytes"},
		{"fragments that do not count down", "", []Segment{{Conv: 1, Cmd: CmdPush, Frg: 1}, {Conv: 1, Cmd: CmdPush, Sn: 1, Frg: 3}}, nil,
			"kcp: conv 1 sn 1: frg 3 after frg 1: fragments do not count down\nkcp: conv 1: the capture ended inside a message of 2 fragments from sn 0"},
		{"a message cut at the end", "", []Segment{{Conv: 1, Cmd: CmdPush, Frg: 2}}, nil, "kcp: conv 1: the capture ended inside a message of 1 fragments from sn 0"},
		{"too many conversations", "", []Segment{{Conv: 1, Cmd: CmdAck}, {Conv: 2, Cmd: CmdAck}, {Conv: 3, Cmd: CmdAck}}, nil,
			"kcp: more than 2 conversations: segments of further convs are dropped"},
	}
	for _, tt := range tests {
		r := NewReassembler(Config{MaxConvs: 2, ErrorPrefix: tt.prefix})
		if tt.raw != nil {
			if err := r.Datagram(tt.raw, nil); err == nil {
				t.Errorf("%s: no error", tt.name)
			}
		}
		for _, s := range tt.segs {
			r.Datagram(EncodeSegment(nil, s), nil)
		}
		if got := findingTexts(r.End(nil)); got != tt.want {
			t.Errorf("%s: findings %q; want %q", tt.name, got, tt.want)
		}
	}
}
