package ulinkrpc

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A PUSH segment, annotated (ulinkrpc.md 2.3, little-endian):
var vecSegment = h(`
	78563412   # conv 0x12345678
	51         # cmd 81 PUSH
	00         # frg 0
	8000       # wnd 128
	e8030000   # ts 1000
	05000000   # sn 5
	04000000   # una 4
	03000000   # len 3
	616263     # data "abc"`)

func TestParseSegment(t *testing.T) {
	s, n, err := ParseSegment(vecSegment)
	want := Segment{Conv: 0x12345678, Cmd: CmdPush, Wnd: 128, Ts: 1000, Sn: 5, Una: 4, Data: []byte("abc")}
	if err != nil || n != 27 || fmt.Sprint(s) != fmt.Sprint(want) {
		t.Errorf("ParseSegment = %+v, %d, %v; want %+v, 27", s, n, err, want)
	}
	if got := EncodeSegment(nil, want); !bytes.Equal(got, vecSegment) {
		t.Errorf("EncodeSegment = %x; want %x", got, vecSegment)
	}
	if got := fieldList(s.Fields("kcp.")); got != "kcp.conv@0+4=305419896 kcp.cmd@4+1=81 kcp.frg@5+1=0 kcp.wnd@6+2=128 kcp.ts@8+4=1000 kcp.sn@12+4=5 kcp.una@16+4=4 kcp.len@20+4=3 kcp.data@24+3=616263" {
		t.Errorf("Fields = %s", got)
	}
	// Every shorter cut fails cleanly.
	for n := range len(vecSegment) {
		if _, _, err := ParseSegment(vecSegment[:n]); !errors.Is(err, ErrShort) {
			t.Errorf("ParseSegment(cut %d) = %v; want ErrShort", n, err)
		}
	}
	bad := bytes.Clone(vecSegment)
	bad[4] = 80
	if _, _, err := ParseSegment(bad); err == nil || err.Error() != "ulinkrpc kcp: cmd: unknown command 80 (81 PUSH, 82 ACK, 83 WASK, 84 WINS) at byte 4" {
		t.Errorf("ParseSegment(cmd 80) = %v", err)
	}
	two := append(bytes.Clone(vecSegment), vecSegment[:10]...)
	if segs, err := ParseDatagram(two); len(segs) != 1 || err == nil || err.Error() != "ulinkrpc kcp: ts: need 4 bytes at byte 35, have 2" {
		t.Errorf("ParseDatagram(one and a cut) = %d segments, %v", len(segs), err)
	}
}

func TestHandshake(t *testing.T) {
	tests := []struct {
		in   []byte
		want Handshake
		ok   bool
	}{
		{h(`554b4350 2a000000`), Handshake{Conv: 42}, true},
		{h(`55414b43 2a000000`), Handshake{}, false},
		{h(`5541434b 2a000000 204e0000`), Handshake{Ack: true, Conv: 42, SessionPort: 20000}, true},
		{h(`554b4350 00000000`), Handshake{}, false},
		{h(`554b4350 2a0000`), Handshake{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseHandshake(tt.in)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("ParseHandshake(%x) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok && !bytes.Equal(EncodeHandshake(got), tt.in) {
			t.Errorf("EncodeHandshake(%+v) = %x; want %x", got, EncodeHandshake(got), tt.in)
		}
	}
}

// kcpStream splits a frame stream into KCP messages (one per frame) and
// segments.
func kcpSegments(conv uint32, frames [][]byte, mss int) ([]Segment, []byte) {
	var segs []Segment
	var stream []byte
	sn := uint32(0)
	for _, f := range frames {
		msg := AppendFrame(nil, f)
		stream = append(stream, msg...)
		s := SplitMessage(conv, sn, msg, mss)
		sn += uint32(len(s))
		segs = append(segs, s...)
	}
	return segs, stream
}

func TestReassembler(t *testing.T) {
	_, frames := conversation(6)
	segs, stream := kcpSegments(7, frames, 8)
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
		r := NewReassembler(KCPLimits{})
		r.Start(7)
		var got []byte
		var dg []byte
		for _, s := range tt.in {
			dg = EncodeSegment(dg[:0], s)
			r.Datagram(dg, func(m KCPMessage) { got = append(got, m.Data...) })
		}
		r.Datagram(EncodeSegment(nil, Segment{Conv: 7, Cmd: CmdAck, Sn: 3}), nil)
		fs := r.End(nil)
		if !bytes.Equal(got, stream) || len(fs) != 0 {
			t.Errorf("%s: %d bytes (want %d), findings %v", tt.name, len(got), len(stream), fs)
		}
		c := r.Counts(7)
		if c.Messages != int64(len(frames)) || c.Ack != 1 || r.Held() != 0 {
			t.Errorf("%s: counts %+v held %d", tt.name, c, r.Held())
		}
	}
}

func TestReassemblerGap(t *testing.T) {
	_, frames := conversation(4)
	segs, _ := kcpSegments(7, frames, 8)
	r := NewReassembler(KCPLimits{MaxSegments: 8})
	r.Start(7)
	var msgs []KCPMessage
	for i, s := range segs {
		if i == 1 {
			continue // lose sn 1, inside the first message
		}
		r.Segment(s, func(m KCPMessage) { m.Data = bytes.Clone(m.Data); msgs = append(msgs, m) })
	}
	fs := r.End(nil)
	if len(msgs) != len(frames)-1 || !msgs[0].Gap || !bytes.Equal(msgs[0].Data, AppendFrame(nil, frames[1])) {
		t.Errorf("gap: %d messages, first %+v", len(msgs), msgs)
	}
	if len(fs) != 1 || !strings.HasPrefix(fs[0].Text, "kcp: conv 7: gap in sn: 1 segments missing from sn 1 (too much held behind it), a partial message of 1 fragments dropped") {
		t.Errorf("gap findings = %v", findingTexts(fs))
	}
}

// A hostile stream cannot make the reassembler hold more than its bounds.
func TestReassemblerBounds(t *testing.T) {
	r := NewReassembler(KCPLimits{MaxConvs: 4, MaxSegments: 16, MaxConvData: 4096, MaxData: 8192})
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

// TestReassemblerHolding (ulinkrpc.md 2.3): Holding names the earliest
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
		r := NewReassembler(KCPLimits{})
		r.Start(7)
		var msgs []string
		yield := func(m KCPMessage) {
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
