package ulinkrpc

import (
	"bytes"
	"testing"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
)

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

// TestKCPWords: ULinkRPC's KCP reassembler says a parse error as its own
// errors read ("ulinkrpc kcp: ..."), and a gap skipped for the
// capture-wide Budget with the Budget's reason.
func TestKCPWords(t *testing.T) {
	r := NewReassembler(kcp.Config{}, nil)
	seg := kcp.EncodeSegment(nil, kcp.Segment{Conv: 7, Cmd: kcp.CmdPush, Data: []byte("abc")})
	bad := bytes.Clone(seg)
	bad[4] = 80
	r.Datagram(append(bytes.Clone(seg), bad...), nil)
	if fs := r.Findings(); len(fs) != 1 || fs[0].Text != "ulinkrpc kcp: cmd: unknown command 80 (81 PUSH, 82 ACK, 83 WASK, 84 WINS) at byte 31" || fs[0].Bit != -1 {
		t.Errorf("findings %v; want the unknown command at byte 31, as ULinkRPC's errors read", fs)
	}
	b := NewBudget(10)
	r = NewReassembler(kcp.Config{}, b)
	r.Start(7)
	r.Segment(kcp.Segment{Conv: 7, Cmd: kcp.CmdPush, Sn: 1, Data: make([]byte, 20)}, nil)
	want := "kcp: conv 7: gap in sn: 1 segments missing from sn 0 (what is held behind it is past the capture-wide ULinkRPC buffer budget of 10 bytes (max_rpc_buffer))"
	if fs := r.Findings(); len(fs) != 1 || fs[0].Text != want || b.Used() != 0 {
		t.Errorf("findings %v, budget %d bytes; want %q, 0", fs, b.Used(), want)
	}
}
