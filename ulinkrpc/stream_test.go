package ulinkrpc

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
)

// conversation is a client stream of prefixed frames and the frames.
func conversation(n int) ([]byte, [][]byte) {
	var stream []byte
	var frames [][]byte
	for i := range n {
		var f []byte
		switch i % 3 {
		case 0:
			f = EncodeRequest(uint32(i+1), 1, int32(i), []byte(fmt.Sprintf(`{"N":%d}`, i)))
		case 1:
			f = EncodeKeepAlive(KeepAlivePing, int64(i))
		default:
			f = EncodeResponse(uint32(i), StatusOk, []byte{byte(i)}, "")
		}
		frames = append(frames, f)
		stream = AppendFrame(stream, f)
	}
	return stream, frames
}

type collected struct {
	frames [][]byte
	infos  []FrameInfo
}

func (c *collected) yield(f []byte, info FrameInfo) {
	c.frames = append(c.frames, bytes.Clone(f))
	c.infos = append(c.infos, info)
}

func checkStats(t *testing.T, s *Stream, what string) {
	t.Helper()
	st := s.Stats()
	if st.Fed != st.Framed+st.Skipped+st.Dropped+4*st.Closes+st.Buffered {
		t.Errorf("%s: stats %+v do not add up", what, st)
	}
}

// Any chunking yields the same frames.
func TestStreamChunks(t *testing.T) {
	stream, frames := conversation(7)
	for size := 1; size <= len(stream); size++ {
		s := NewStream(StreamConfig{})
		var c collected
		for i := 0; i < len(stream); i += size {
			s.Feed(stream[i:min(i+size, len(stream))], c.yield)
		}
		if fs := s.End(c.yield); len(fs) != 0 {
			t.Errorf("chunk %d: findings %v", size, fs)
		}
		if len(c.frames) != len(frames) {
			t.Fatalf("chunk %d: %d frames; want %d", size, len(c.frames), len(frames))
		}
		for i := range frames {
			if !bytes.Equal(c.frames[i], frames[i]) {
				t.Errorf("chunk %d: frame %d = %x; want %x", size, i, c.frames[i], frames[i])
			}
		}
		checkStats(t, s, fmt.Sprintf("chunk %d", size))
	}
}

func findingTexts(fs []dissect.Finding) string {
	var b []string
	for _, f := range fs {
		b = append(b, f.Severity.String()+": "+f.Text)
	}
	return strings.Join(b, "; ")
}

func TestStreamResync(t *testing.T) {
	stream, frames := conversation(9)
	tests := []struct {
		name     string
		run      func(s *Stream, c *collected)
		first    int // index in frames of the first frame yielded
		findings string
	}{
		{"start mid-frame", func(s *Stream, c *collected) {
			s.StartUnsynced()
			s.Feed(stream[6:], c.yield)
		}, 1, "warn: resync: skipped 22 bytes at stream offset 0"},
		{"gap", func(s *Stream, c *collected) {
			s.Feed(stream[:30], c.yield)
			s.Gap(5)
			s.Feed(stream[35:], c.yield)
		}, 0, "warn: framing: dropped a partial frame at stream offset 28: had 2 of 4 prefix bytes before a gap of 5 bytes; warn: resync: skipped 6 bytes at stream offset 35"},
		{"invalid length", func(s *Stream, c *collected) {
			bad := append([]byte{0x7f, 0, 0, 0}, stream...)
			s.Feed(bad, c.yield)
		}, 0, "error: framing: invalid length 2130706432 above the limit 67108864 at stream offset 0; warn: resync: skipped 4 bytes at stream offset 0"},
		{"close", func(s *Stream, c *collected) {
			s.Feed(append([]byte{0, 0, 0, 0}, stream...), c.yield)
		}, 0, "note: framing: zero-length frame (a close) at stream offset 0"},
	}
	for _, tt := range tests {
		s := NewStream(StreamConfig{})
		var c collected
		tt.run(s, &c)
		fs := findingTexts(s.End(c.yield))
		if fs != tt.findings {
			t.Errorf("%s: findings = %s; want %s", tt.name, fs, tt.findings)
		}
		if len(c.frames) == 0 {
			t.Errorf("%s: no frames", tt.name)
			continue
		}
		// The last frames are the conversation's tail.
		last := c.frames[len(c.frames)-1]
		if !bytes.Equal(last, frames[len(frames)-1]) {
			t.Errorf("%s: last frame = %x; want %x", tt.name, last, frames[len(frames)-1])
		}
		if tt.name != "gap" && !bytes.Equal(c.frames[0], frames[tt.first]) {
			t.Errorf("%s: first frame = %x; want %x", tt.name, c.frames[0], frames[tt.first])
		}
		checkStats(t, s, tt.name)
	}
}

// At the end of the stream a shorter chain, up to the last byte, is enough.
func TestStreamEndChain(t *testing.T) {
	stream, frames := conversation(2)
	s := NewStream(StreamConfig{})
	s.StartUnsynced()
	var c collected
	s.Feed(stream[3:], c.yield)
	if len(c.frames) != 0 {
		t.Fatalf("frames before End: %d", len(c.frames))
	}
	fs := s.End(c.yield)
	if len(c.frames) != 1 || !bytes.Equal(c.frames[0], frames[1]) || !c.infos[0].Resynced {
		t.Errorf("End: frames %x infos %+v; want the ping, resynced", c.frames, c.infos)
	}
	if got := findingTexts(fs); got != "warn: resync: skipped 25 bytes at stream offset 0" {
		t.Errorf("End findings = %s", got)
	}
	checkStats(t, s, "end chain")
}

// A per-frame cap below the real limit, and the resync buffer bound.
func TestStreamBounds(t *testing.T) {
	s := NewStream(StreamConfig{MaxLen: 100, ResyncMaxLen: 50})
	big := AppendFrame(nil, EncodeRequest(1, 1, 1, make([]byte, 200)))
	s.Feed(big, nil)
	if s.Synced() {
		t.Errorf("Feed(frame over the cap): still synced")
	}
	junk := bytes.Repeat([]byte{0, 0, 0, 40, 0xee}, 1000)
	s.Feed(junk, nil)
	if b := s.Stats().Buffered; b > 3*(4+50)+4 {
		t.Errorf("resync buffered %d bytes; want at most %d", b, 3*(4+50)+4)
	}
	checkStats(t, s, "bounds")
}
