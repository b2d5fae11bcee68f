package ulinkrpc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// The ULinkRPC codec's own bounds (SECURITY.md "Bounds", ULinkRPC): each
// test feeds what would make an unbounded decoder hold more, and checks
// what is held and what is said.

// TestStreamFrameLimit: a length prefix above 64 MiB is an invalid length
// (ulinkrpc.md 2) and nothing is allocated for it; one of exactly 64 MiB is
// accepted, and the partial frame held grows with the bytes that arrive,
// not from the prefix.
func TestStreamFrameLimit(t *testing.T) {
	if MaxFrameLen != 64<<20 {
		t.Fatalf("MaxFrameLen = %d; want 64 MiB (ulinkrpc.md 2)", MaxFrameLen)
	}
	s := NewStream(StreamConfig{})
	s.Feed(binary.BigEndian.AppendUint32(nil, MaxFrameLen+1), nil)
	fs := s.Findings()
	if s.Synced() || len(fs) == 0 || !strings.Contains(fs[0].Text, "invalid length 67108865 above the limit 67108864") {
		t.Errorf("prefix 64 MiB + 1: synced %v, findings %v; want an invalid length and resynchronisation", s.Synced(), fs)
	}
	s = NewStream(StreamConfig{})
	s.Feed(append(binary.BigEndian.AppendUint32(nil, MaxFrameLen), 1, 2, 3), nil)
	if body, _ := s.Buffers(); !s.Synced() || s.Stats().Buffered != 7 || body > 1<<10 {
		t.Errorf("prefix 64 MiB and 3 bytes: synced %v, buffered %d, body capacity %d; want the 7 bytes held and no 64 MiB buffer",
			s.Synced(), s.Stats().Buffered, body)
	}
}

// TestStreamResyncBound: while resynchronising a Stream holds at most
// 3·(4+ResyncMaxLen)+4 bytes with the default bounds.
func TestStreamResyncBound(t *testing.T) {
	s := NewStream(StreamConfig{})
	s.StartUnsynced()
	// Prefixes of 60 KiB whose frames never validate: every candidate
	// stays undecided as long as it can.
	junk := bytes.Repeat(append(binary.BigEndian.AppendUint32(nil, 60<<10), bytes.Repeat([]byte{0xee}, 60<<10)...), 8)
	most := int64(0)
	for i := 0; i < len(junk); i += 4096 {
		s.Feed(junk[i:min(i+4096, len(junk))], nil)
		most = max(most, s.Stats().Buffered)
	}
	if bound := int64(3*(4+ResyncMaxLen) + 4); most > bound || most == 0 {
		t.Errorf("resynchronising held at most %d bytes; want 1..%d", most, bound)
	}
	checkStats(t, s, "resync bound")
}

// TestInflateDefaultCap: with no cap given, a gzip body inflates to at
// most MaxInflate = 64 MiB + 1 KiB (the real receiver's cap), then it is an
// error.
func TestInflateDefaultCap(t *testing.T) {
	if MaxInflate != 64<<20+1<<10 {
		t.Fatalf("MaxInflate = %d; want 64 MiB + 1 KiB (ulinkrpc.md 3)", MaxInflate)
	}
	if testing.Short() {
		t.Skip("inflates 64 MiB")
	}
	frame := append([]byte{FlagGzip}, Gzip(make([]byte, MaxInflate+1))...)
	u, err := Untransform(frame, TransformConfig{Mode: On})
	if !errors.Is(err, ErrTooLarge) || u.Envelope != nil {
		t.Errorf("Untransform(gzip of 64 MiB + 1 KiB + 1 zeros) = %d bytes, %v; want ErrTooLarge", len(u.Envelope), err)
	}
}
