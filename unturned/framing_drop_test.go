package unturned

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// TestFramerDropPartial: DropPartial frees a partial message's buffer with
// a finding, drops the rest of that message as it arrives and frames the
// next one in step; unsynchronised, it skips the buffered bytes and
// resynchronisation goes on. The counters always add up.
func TestFramerDropPartial(t *testing.T) {
	check := func(f *Framer, what string) {
		t.Helper()
		s := f.Stats()
		if s.Fed != s.Framed+s.Skipped+s.Dropped+s.Buffered {
			t.Errorf("%s: stats %+v do not add up", what, s)
		}
	}
	var got [][]byte
	yield := func(m []byte, _ FrameInfo) { got = append(got, append([]byte(nil), m...)) }

	f := NewFramer(0)
	// A 6000-byte message, 3000 of it so far.
	f.Feed(append([]byte{0x17, 0x70}, make([]byte, 3000)...), yield)
	if h := f.Held(); h < 3000 || h > 6000 {
		t.Fatalf("Held with a 3000-byte partial = %d; want 3000..6000", h)
	}
	if freed := f.DropPartial("past the bound"); freed < 3000 {
		t.Errorf("DropPartial freed %d; want at least 3000", freed)
	}
	if f.Held() != 0 {
		t.Errorf("Held after DropPartial = %d; want 0", f.Held())
	}
	fs := f.Findings()
	if len(fs) != 1 || !strings.Contains(fs[0].Text, "dropped a partial message at stream offset 0: had 3002 of 6002 bytes past the bound; its other 3000 bytes are dropped as they arrive") {
		t.Errorf("findings %v; want the drop", fs)
	}
	check(f, "after the drop")
	// The rest of it in two chunks, then a 1-byte message.
	f.Feed(make([]byte, 2000), yield)
	f.Feed(append(make([]byte, 1000), 0, 1, 0x42), yield)
	if len(got) != 1 || len(got[0]) != 1 || got[0][0] != 0x42 || !f.Synced() {
		t.Errorf("after the dropped message: %d messages %x, synced %v; want the 1-byte message 42 in step", len(got), got, f.Synced())
	}
	check(f, "after the next message")
	if s := f.Stats(); s.Dropped != 6002 {
		t.Errorf("Dropped = %d; want 6002, the whole message", s.Dropped)
	}

	// Unsynchronised: the buffered bytes are skipped.
	u := NewFramer(0)
	u.StartUnsynced()
	u.Feed([]byte{0, 5, 1}, nil)
	if u.Held() == 0 {
		t.Fatalf("an unsynced framer holding 3 bytes reports Held 0")
	}
	u.DropPartial("past the bound")
	if u.Held() != 0 || u.Synced() {
		t.Errorf("after DropPartial unsynced: Held %d, synced %v; want 0, still resynchronising", u.Held(), u.Synced())
	}
	check(u, "unsynced after the drop")
	if fs := u.Findings(); len(fs) != 1 || !strings.Contains(fs[0].Text, "dropped 3 bytes awaiting resynchronisation at stream offset 0 past the bound") {
		t.Errorf("findings %v; want the skipped bytes", fs)
	}
	// A whole message after a gap frees the body once it is long.
	g := NewFramer(0)
	g.Feed(append([]byte{0x17, 0x70}, make([]byte, 3000)...), nil)
	g.Feed(make([]byte, 3000), nil)
	if g.Held() != 0 {
		t.Errorf("Held after a long message completed = %d; want 0 (the buffer is let go)", g.Held())
	}
}

// FuzzFramerDrop feeds a stream in chunks and drops the framer's buffers
// after the chunks its mask picks (as the session does past
// max_total_buffer): the counters add up, Held is 0 after each drop, and
// every message yielded is where it says in the stream, in order.
func FuzzFramerDrop(f *testing.F) {
	f.Add([]byte{0, 3, 1, 2, 3, 0x17, 0x70, 9, 9, 9, 0, 1, 5}, []byte{4, 3, 2}, byte(0b010), false)
	f.Add([]byte{0, 0, 0, 2, 1, 2, 0, 2, 3, 4, 0, 1, 5}, []byte{1, 1, 1, 1}, byte(0b1111), true)
	f.Fuzz(func(t *testing.T, data, chunks []byte, mask byte, unsynced bool) {
		fr := NewFramer(0)
		if unsynced {
			fr.StartUnsynced()
		}
		var got []framed
		y := collector(&got)
		prev := 0
		for i, n := range chunks {
			c := min(prev+int(n), len(data))
			fr.Feed(data[prev:c], y)
			prev = c
			if mask&(1<<(i%8)) != 0 {
				fr.DropPartial("fuzz")
				if fr.Held() != 0 {
					t.Fatalf("Held %d after DropPartial", fr.Held())
				}
			}
			checkStats(t, fr)
		}
		fr.Feed(data[prev:], y)
		fr.End(y)
		checkStats(t, fr)
		// Each message is in the data at its offset, after the one
		// before (a dropped message leaves a hole no Skipped carries).
		next := int64(0)
		for _, g := range got {
			msg, _ := hex.DecodeString(g.msg)
			o := g.info.Offset
			if o < next || o+2+int64(len(msg)) > int64(len(data)) || int(data[o])<<8|int(data[o+1]) != len(msg) || !bytes.Equal(data[o+2:o+2+int64(len(msg))], msg) {
				t.Fatalf("message %v is not in the data at its offset, after %d", g, next)
			}
			next = o + 2 + int64(len(msg))
		}
	})
}
