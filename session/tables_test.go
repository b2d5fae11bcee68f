package session

import (
	"io"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/usmnscope/usmnscope/dissect"
)

// TestRecordSize holds the message index record to 36 bytes, so that the
// index, the connection's message list and the views' own index stay within
// issue 7's budget of 64 bytes per message.
func TestRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(record{}); n > 36 {
		t.Errorf("unsafe.Sizeof(record{}) = %d; want ≤ 36", n)
	}
}

// BenchmarkTablesAsOf asks for the tables as of random messages of a
// 100k-message conversation, as the TUI does on every selection move.
func BenchmarkTablesAsOf(b *testing.B) {
	rng := rand.New(rand.NewSource(7))
	dirs, msgs := genConversation(rng, 100_000)
	f := newCVFeeder()
	for i := range msgs {
		f.send(dirs[i], msgs[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if f.c.Tables(cvConn, 1+rng.Intn(len(msgs))) == nil {
			b.Fatal("nil tables")
		}
	}
}

// segStore is a Store over byte runs at arbitrary offsets, so that offsets
// far apart need no real file.
type segStore map[int64][]byte

func (s segStore) ReadAt(p []byte, off int64) (int, error) {
	for at, b := range s {
		if off >= at && off < at+int64(len(b)) {
			n := copy(p, b[off-at:])
			if n < len(p) {
				return n, io.EOF
			}
			return n, nil
		}
	}
	return 0, io.EOF
}

// TestRecordDeltas: times and offsets that do not fit a record's 32-bit
// deltas (nanoseconds past 4.29 s, microseconds past 71 minutes, earlier
// than the block's first, file offsets 8 GiB apart) come back exactly, from
// the file as from memory.
func TestRecordDeltas(t *testing.T) {
	t0 := time.Unix(1700000000, 123456789)
	steps := []struct {
		d   time.Duration
		off int64
	}{
		{0, 100},
		{time.Nanosecond, 200},
		{5 * time.Second, 300},                // µs-aligned past 4.29 s
		{5*time.Second + time.Nanosecond, 50}, // ns past 4.29 s; offset before the base
		{-time.Second, 8 << 30},               // before the block's first; 8 GiB on
		{2 * time.Hour, 400},                  // µs past 71 minutes
		{3 * time.Millisecond, 500},
	}
	mem, file := NewIndex(nil), NewIndex(nil)
	store := segStore{}
	file.SetStore(store)
	for i, s := range steps {
		body := []byte{byte(i), 0xA5, byte(i * 3)}
		seg := append([]byte{0, byte(len(body))}, body...)
		store[s.off] = seg
		at := t0.Add(s.d)
		mem.Data(cvConn, dissect.C2S, seg, at, i+1)
		file.DataAt(cvConn, dissect.C2S, seg, at, i+1, s.off)
	}
	mem.Finish()
	file.Finish()
	if f, m := file.Placement(); f != len(steps) || m != 0 {
		t.Fatalf("Placement() = %d, %d; want %d, 0", f, m, len(steps))
	}
	for n := 1; n <= len(steps); n++ {
		want := t0.Add(steps[n-1].d).UTC()
		for name, c := range map[string]*Index{"memory": mem, "file": file} {
			m := c.Message(n)
			if m == nil || !m.Time.Equal(want) {
				t.Errorf("%s: Message(%d).Time = %v; want %v", name, n, m.Time, want)
			}
			if !reflect.DeepEqual(m.Data, []byte{byte(n - 1), 0xA5, byte((n - 1) * 3)}) {
				t.Errorf("%s: Message(%d).Data = % x; want its body", name, n, m.Data)
			}
		}
		if got, want := file.Detail(n), mem.Detail(n); !reflect.DeepEqual(got, want) {
			t.Errorf("Detail(%d) from the store = %+v; want %+v", n, got, want)
		}
	}
}

// TestStoreReadError: when the file no longer holds a message's bytes (cut
// or changed after reading), Message and Detail still answer, with what was
// read and an error finding naming the offset, and the tables as of an
// earlier message are still built.
func TestStoreReadError(t *testing.T) {
	c := NewIndex(nil)
	store := segStore{}
	c.SetStore(store)
	seg := []byte{0, 3, 0x11, 0x22, 0x33, 0, 2, 0x44, 0x55}
	c.DataAt(cvConn, dissect.C2S, seg, cvT0, 1, 1000)
	c.Finish()
	store[1000] = seg[:4] // the second message and the first's last byte are gone
	for _, m := range []*Message{c.Message(1), c.Detail(1), c.Message(2)} {
		if m == nil {
			t.Fatal("nil message")
		}
		found := false
		for _, f := range m.Findings {
			if f.Severity == dissect.Error && strings.Contains(f.Text, "capture file: message bytes at offset") {
				found = true
			}
		}
		if !found {
			t.Errorf("Message(%d).Findings = %+v; want an error naming the file offset", m.N, m.Findings)
		}
	}
	if got := c.Message(1).Data; !reflect.DeepEqual(got, []byte{0x11, 0x22}) {
		t.Errorf("Message(1).Data = % x; want the 2 bytes still there", got)
	}
	if c.Tables(cvConn, 1) == nil {
		t.Error("Tables(conn, 1) = nil")
	}
}
