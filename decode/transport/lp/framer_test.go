package lp

import (
	"bytes"
	"fmt"
	"testing"
)

// frames lays out bodies with w-byte headers of the given byte order.
func frames(w int, little bool, bodies ...string) []byte {
	var out []byte
	for _, b := range bodies {
		h := make([]byte, w)
		for i := range w {
			shift := 8 * (w - 1 - i)
			if little {
				shift = 8 * i
			}
			h[i] = byte(len(b) >> shift)
		}
		out = append(append(out, h...), b...)
	}
	return out
}

// TestFramerConfigs: the framer is the same for every header the Config
// names: whole frames, frames cut into single bytes, a zero length as a
// close or as corruption, and resynchronisation after a gap, for 2- and
// 4-byte headers of either byte order.
func TestFramerConfigs(t *testing.T) {
	bodies := []string{"alpha", "be", "gamma!", "d", "epsilon", "zeta"}
	for _, w := range []int{2, 4} {
		for _, little := range []bool{false, true} {
			for _, zeroClose := range []bool{false, true} {
				name := fmt.Sprintf("width %d little %v close %v", w, little, zeroClose)
				cfg := Config{Width: w, Little: little, MaxLen: 64, ZeroClose: zeroClose, KeepBody: 64,
					Rule: Rule{Limit: 64, Whole: 2, Header: true, EndWhole: 2}, Frame: "frame", Header: "header"}
				data := frames(w, little, bodies...)
				for _, step := range []int{len(data), 1} {
					f := New(cfg)
					var got []string
					for off := 0; off < len(data); off += step {
						f.Feed(data[off:min(off+step, len(data))], func(b []byte, _ FrameInfo) { got = append(got, string(b)) })
					}
					if fmt.Sprint(got) != fmt.Sprint(bodies) {
						t.Errorf("%s, chunks of %d: frames %q; want %q", name, step, got, bodies)
					}
				}
				// A zero length after the first frame: a close, or corruption
				// the framer resynchronises after (the frames after it chain).
				z := append(append(frames(w, little, bodies[0]), make([]byte, w)...), frames(w, little, bodies[1:]...)...)
				f := New(cfg)
				var got []string
				f.Feed(z, func(b []byte, _ FrameInfo) { got = append(got, string(b)) })
				f.End(func(b []byte, _ FrameInfo) { got = append(got, string(b)) })
				st := f.Stats()
				if zeroClose && (st.Closes != 1 || fmt.Sprint(got) != fmt.Sprint(bodies)) {
					t.Errorf("%s: zero length: closes %d, frames %q; want 1 close and every frame", name, st.Closes, got)
				}
				if !zeroClose && (st.Closes != 0 || len(got) == 0 || got[0] != bodies[0] || got[len(got)-1] != bodies[len(bodies)-1]) {
					t.Errorf("%s: zero length: closes %d, frames %q; want corruption, the first and last frames kept", name, st.Closes, got)
				}
				// Joined mid-stream: the first frame's body is skipped, the
				// rest found again.
				f = New(cfg)
				f.StartUnsynced()
				got = nil
				mid := frames(w, little, bodies...)[w+2:]
				f.Feed(mid, func(b []byte, _ FrameInfo) { got = append(got, string(b)) })
				f.End(func(b []byte, _ FrameInfo) { got = append(got, string(b)) })
				if len(got) < 3 || !bytes.Equal([]byte(got[len(got)-1]), []byte(bodies[len(bodies)-1])) {
					t.Errorf("%s: joined mid-stream: frames %q; want the last ones found again", name, got)
				}
				if s := f.Stats(); s.Fed != s.Framed+s.Skipped+s.Dropped+s.Closes*int64(w)+s.Buffered {
					t.Errorf("%s: stats %+v do not add up", name, s)
				}
			}
		}
	}
}
