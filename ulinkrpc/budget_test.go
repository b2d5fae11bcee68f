package ulinkrpc

import (
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
)

// TestKeepInflated: a gzip frame inflating past the display cap keeps its
// compressed body (the body field) with an error finding and no envelope;
// one within it is inflated as before (issue 29 point 1: a 64 MiB envelope
// under the receiver's cap grew memory by about 0.9 GiB a frame).
func TestKeepInflated(t *testing.T) {
	zeros := make([]byte, 4<<20)
	body := Gzip(zeros)
	frame := append([]byte{FlagGzip}, body...)
	u, err := Untransform(frame, TransformConfig{Mode: On, KeepInflated: 1 << 20})
	want := "gzip: the frame inflates past the display cap of 1048576 bytes (max_inflate): kept as its " + strconv.Itoa(len(body)) + " compressed bytes, not decoded"
	if !errors.Is(err, ErrTooLarge) || u.Envelope != nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Untransform(4 MiB of zeros, keep 1 MiB) = %d bytes, %v; want no envelope, %q", len(u.Envelope), err, want)
	}
	if len(u.Fields) != 2 || u.Fields[1].Name != "body" || u.Fields[1].Bits != 8*len(body) {
		t.Errorf("Untransform(4 MiB of zeros, keep 1 MiB) fields = %+v; want flags and the compressed body", u.Fields)
	}
	if u, err := Untransform(frame, TransformConfig{Mode: On, KeepInflated: 4 << 20}); err != nil || len(u.Envelope) != 4<<20 {
		t.Errorf("Untransform(4 MiB of zeros, keep 4 MiB) = %d bytes, %v; want 4 MiB, nil", len(u.Envelope), err)
	}
}

// TestStreamBudget: 8 streams, each growing a partial frame of 1 MiB +
// 1,000 bytes in turn, share a 2 MiB Budget: the stream whose growth takes
// it past the bound drops its partial frame with a finding, skips the rest
// of that frame and frames the next one; the Budget never holds much more
// than its bound (issue 29 point 2: 8 TCP connections × 40 MiB peaked at
// 540-570 MiB).
func TestStreamBudget(t *testing.T) {
	b := NewBudget(2 << 20)
	const size = 1<<20 + 1000
	streams := make([]*Stream, 8)
	frames := make([]int, 8)
	for i := range streams {
		streams[i] = NewStream(StreamConfig{Budget: b})
		streams[i].Feed(binary.BigEndian.AppendUint32(nil, size), nil)
	}
	chunk := make([]byte, 1400)
	peak := 0
	for off := 0; off < size; off += len(chunk) {
		for i, s := range streams {
			s.Feed(chunk[:min(len(chunk), size-off)], func([]byte, FrameInfo) { frames[i]++ })
			peak = max(peak, b.Used())
		}
	}
	// The next frame on each stream is framed whole.
	next := append(binary.BigEndian.AppendUint32(nil, 3), 'a', 'b', 'c')
	dropped := 0
	for i, s := range streams {
		s.Feed(next, func(f []byte, _ FrameInfo) {
			if string(f) == "abc" {
				frames[i]++
			}
		})
		for _, f := range s.Findings() {
			if strings.Contains(f.Text, "past the capture-wide ULinkRPC buffer budget of 2097152 bytes (max_rpc_buffer)") {
				dropped++
			}
		}
	}
	if peak > 2<<20+2<<20 {
		t.Errorf("Budget peak = %d bytes; want about its bound, 2 MiB", peak)
	}
	if dropped == 0 {
		t.Errorf("no partial frame dropped past the budget")
	}
	for i, n := range frames {
		if n < 1 {
			t.Errorf("stream %d: %d frames; want the 3-byte frame after the dropped one framed", i, n)
		}
	}
}

// TestKCPBudget: 6 reassemblers (6 KCP flows), 16 conversations each,
// hold segments behind a missing sn 1 from one 4 MiB Budget: past it the
// conversation taking a segment skips its gap, with a warning that says
// why, and the Budget stays near its bound (issue 29 point 2: 6 flows × 60
// MiB peaked at 436 MiB).
func TestKCPBudget(t *testing.T) {
	b := NewBudget(4 << 20)
	rs := make([]*kcp.Reassembler, 6)
	for i := range rs {
		rs[i] = NewReassembler(kcp.Config{}, b)
	}
	data := make([]byte, 1376)
	peak := 0
	for sn := uint32(0); sn < 200; sn++ {
		if sn == 1 {
			continue
		}
		for _, r := range rs {
			for c := range uint32(16) {
				r.Datagram(kcp.EncodeSegment(nil, kcp.Segment{Conv: c, Cmd: kcp.CmdPush, Sn: sn, Data: data}), nil)
				peak = max(peak, b.Used())
			}
		}
	}
	said := 0
	for _, r := range rs {
		for _, f := range r.Findings() {
			if strings.Contains(f.Text, "is past the capture-wide ULinkRPC buffer budget of 4194304 bytes (max_rpc_buffer)") {
				said++
			}
		}
	}
	if peak > 4<<20+64<<10 || said == 0 {
		t.Errorf("Budget peak = %d bytes, %d budget warnings; want at most 4 MiB + a segment, some warnings", peak, said)
	}
	for _, r := range rs {
		r.End(nil)
	}
	if b.Used() != 0 {
		t.Errorf("Budget after End = %d bytes; want 0", b.Used())
	}
}
