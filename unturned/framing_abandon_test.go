package unturned

import "testing"

// TestFramerAbandon: a resynchronising framer told to stop waiting frames
// what chains exactly to the end of its buffer, skips the rest with the
// reason, and keeps resynchronising on the bytes that follow.
func TestFramerAbandon(t *testing.T) {
	for _, tc := range []struct {
		name   string
		held   []byte // fed while resynchronising, undecided
		then   []byte // fed after Abandon
		yields int    // messages Abandon yields
		after  int    // messages the bytes after it yield
	}{
		// 0f a0 announces 4000 bytes: undecided. The rest, 00 01 04 twice,
		// chains exactly to the end.
		{"chains to the end", []byte{0x0f, 0xa0, 0x11, 0x00, 0x01, 0x04, 0x00, 0x01, 0x04}, []byte{0x00, 0x01, 0x05, 0x00, 0x01, 0x06, 0x00, 0x01, 0x07}, 2, 3},
		// Nothing chains: skipped; the framer resynchronises afterwards.
		{"skipped", []byte{0x0f, 0xa0, 0x11}, []byte{0x00, 0x01, 0x05, 0x00, 0x01, 0x06, 0x00, 0x01, 0x07}, 0, 3},
	} {
		f := NewFramer(0)
		f.StartUnsynced()
		n := 0
		f.Feed(tc.held, func([]byte, FrameInfo) { n++ })
		if n != 0 || f.Stats().Buffered != int64(len(tc.held)) {
			t.Fatalf("%s: before Abandon %d messages, %d buffered; want 0, %d", tc.name, n, f.Stats().Buffered, len(tc.held))
		}
		f.Abandon("(test)", func([]byte, FrameInfo) { n++ })
		if n != tc.yields || f.Stats().Buffered != 0 {
			t.Errorf("%s: Abandon yielded %d, %d still buffered; want %d, 0", tc.name, n, f.Stats().Buffered, tc.yields)
		}
		fs := f.Findings()
		if tc.yields == 0 && (len(fs) != 1 || fs[0].Text != "resync: skipped 3 bytes at stream offset 0 (test)") {
			t.Errorf("%s: findings %+v; want the skip with its reason", tc.name, fs)
		}
		n = 0
		f.Feed(tc.then, func([]byte, FrameInfo) { n++ })
		f.End(func([]byte, FrameInfo) { n++ })
		if n != tc.after {
			t.Errorf("%s: %d messages after Abandon; want %d", tc.name, n, tc.after)
		}
		if s := f.Stats(); s.Fed != s.Framed+s.Skipped+s.Dropped+s.Buffered {
			t.Errorf("%s: stats %+v do not add up", tc.name, s)
		}
	}
}
