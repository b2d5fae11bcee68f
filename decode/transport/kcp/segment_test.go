package kcp

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/decode/transport"
)

// A PUSH segment, annotated (little-endian):
var vecSegment = []byte{
	0x78, 0x56, 0x34, 0x12, // conv 0x12345678
	0x51,       // cmd 81 PUSH
	0x00,       // frg 0
	0x80, 0x00, // wnd 128
	0xe8, 0x03, 0x00, 0x00, // ts 1000
	0x05, 0x00, 0x00, 0x00, // sn 5
	0x04, 0x00, 0x00, 0x00, // una 4
	0x03, 0x00, 0x00, 0x00, // len 3
	'a', 'b', 'c', // data
}

func TestParseSegment(t *testing.T) {
	s, n, err := ParseSegment(vecSegment)
	want := Segment{Conv: 0x12345678, Cmd: CmdPush, Wnd: 128, Ts: 1000, Sn: 5, Una: 4, Data: []byte("abc")}
	if err != nil || n != 27 || fmt.Sprint(s) != fmt.Sprint(want) {
		t.Errorf("ParseSegment = %+v, %d, %v; want %+v, 27", s, n, err, want)
	}
	if got := EncodeSegment(nil, want); !bytes.Equal(got, vecSegment) {
		t.Errorf("EncodeSegment = %x; want %x", got, vecSegment)
	}
	var spans []string
	for _, f := range s.Fields("kcp.") {
		spans = append(spans, fmt.Sprintf("%s@%d+%d=%v", f.Name, f.Bit/8, f.Bits/8, f.Value))
	}
	if got := strings.Join(spans, " "); got != "kcp.conv@0+4=305419896 kcp.cmd@4+1=81 kcp.frg@5+1=0 kcp.wnd@6+2=128 kcp.ts@8+4=1000 kcp.sn@12+4=5 kcp.una@16+4=4 kcp.len@20+4=3 kcp.data@24+3=[97 98 99]" {
		t.Errorf("Fields = %s", got)
	}
	if cap(s.Data) != 3 {
		t.Errorf("Data's capacity %d; want 3 (no room to append into the datagram)", cap(s.Data))
	}
}

// TestParseSegmentCuts: every shorter cut of a segment is ErrShort, at
// the field it ends in.
func TestParseSegmentCuts(t *testing.T) {
	want := []string{
		"conv: need 4 bytes at byte 0, have 0", "conv: need 4 bytes at byte 0, have 1", "conv: need 4 bytes at byte 0, have 2", "conv: need 4 bytes at byte 0, have 3",
		"cmd: need 1 byte at byte 4, have 0", "frg: need 1 byte at byte 5, have 0",
		"wnd: need 2 bytes at byte 6, have 0", "wnd: need 2 bytes at byte 6, have 1",
	}
	for n := range len(vecSegment) {
		_, used, err := ParseSegment(vecSegment[:n])
		if !errors.Is(err, transport.ErrShort) {
			t.Errorf("ParseSegment(cut %d) = %v; want ErrShort", n, err)
			continue
		}
		if n < len(want) && err.Error() != "kcp: "+want[n] {
			t.Errorf("ParseSegment(cut %d) = %v; want kcp: %s", n, err, want[n])
		}
		if n >= HeaderLen && (used != HeaderLen || err.Error() != fmt.Sprintf("kcp: data: need 3 bytes at byte 24, have %d", n-HeaderLen)) {
			t.Errorf("ParseSegment(cut %d) = %d, %v; want the data short at byte 24", n, used, err)
		}
	}
}

func TestParseDatagram(t *testing.T) {
	ack := EncodeSegment(nil, Segment{Conv: 0x12345678, Cmd: CmdAck, Sn: 5, Una: 6})
	tests := []struct {
		name string
		in   []byte
		segs string // Cmd/Sn@Off of each segment
		err  string
	}{
		{"one", vecSegment, "[PUSH/5@0]", ""},
		{"a push and an ack", append(bytes.Clone(vecSegment), ack...), "[PUSH/5@0 ACK/5@27]", ""},
		{"empty", nil, "[]", ""},
		{"one and a cut", append(bytes.Clone(vecSegment), vecSegment[:10]...), "[PUSH/5@0]", "kcp: ts: need 4 bytes at byte 35, have 2"},
		{"an unknown command", append(bytes.Clone(vecSegment), 1, 2, 3, 4, 80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
			"[PUSH/5@0]", "kcp: cmd: unknown command 80 (81 PUSH, 82 ACK, 83 WASK, 84 WINS) at byte 31"},
		{"a length past the datagram", append(bytes.Clone(vecSegment[:20]), 0xff, 0xff, 0xff, 0xff), "[]", "kcp: data: need 1073741824 bytes at byte 24, have 0"},
	}
	for _, tt := range tests {
		segs, err := ParseDatagram(tt.in)
		var got []string
		for _, s := range segs {
			got = append(got, fmt.Sprintf("%v/%d@%d", s.Cmd, s.Sn, s.Off))
		}
		if fmt.Sprint("[", strings.Join(got, " "), "]") != tt.segs || errText(err) != tt.err {
			t.Errorf("%s: segments %v, %v; want %s, %s", tt.name, got, err, tt.segs, tt.err)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestSplitMessage(t *testing.T) {
	msg := bytes.Repeat([]byte("0123456789"), 300)
	for _, mss := range []int{0, 1000, 3000, 37} {
		segs := SplitMessage(9, 100, msg, mss)
		limit := mss
		if mss == 0 {
			limit = MSS
		}
		var got []byte
		for i, s := range segs {
			if s.Sn != 100+uint32(i) || int(s.Frg) != len(segs)-1-i || s.Cmd != CmdPush || s.Conv != 9 || len(s.Data) > limit {
				t.Errorf("mss %d: segment %d = conv %d %v sn %d frg %d, %d bytes", mss, i, s.Conv, s.Cmd, s.Sn, s.Frg, len(s.Data))
			}
			got = append(got, s.Data...)
		}
		if !bytes.Equal(got, msg) {
			t.Errorf("mss %d: %d segments hold %d bytes; want %d", mss, len(segs), len(got), len(msg))
		}
	}
	if segs := SplitMessage(9, 0, nil, 0); len(segs) != 1 || segs[0].Frg != 0 || len(segs[0].Data) != 0 {
		t.Errorf("SplitMessage(empty) = %+v; want one empty segment", segs)
	}
}
