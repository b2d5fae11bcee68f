package unturned

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
)

// frame builds a SystemSockets stream (wire.md 2): each message behind its
// 2-byte big-endian length.
func frame(msgs ...[]byte) []byte {
	var b []byte
	for _, m := range msgs {
		b = append(b, byte(len(m)>>8), byte(len(m)))
		b = append(b, m...)
	}
	return b
}

// framed is one yielded message, copied.
type framed struct {
	msg  string // hex
	info FrameInfo
}

func (r framed) String() string {
	return fmt.Sprintf("{%s @%d skipped %d resynced %v}", r.msg, r.info.Offset, r.info.Skipped, r.info.Resynced)
}

// collector returns a yield func appending to *out.
func collector(out *[]framed) func([]byte, FrameInfo) {
	return func(msg []byte, info FrameInfo) {
		*out = append(*out, framed{hex.EncodeToString(msg), info})
	}
}

// feedChunks feeds data cut at the given points (ascending) and ends the
// stream, returning the messages and all findings.
func feedChunks(f *Framer, data []byte, cuts []int) ([]framed, []dissect.Finding) {
	var got []framed
	y := collector(&got)
	prev := 0
	for _, c := range cuts {
		f.Feed(data[prev:c], y)
		prev = c
	}
	f.Feed(data[prev:], y)
	fs := f.Findings()
	fs = append(fs, f.End(y)...)
	return got, fs
}

// checkStats asserts the accounting identity of FrameStats.
func checkStats(t *testing.T, f *Framer) {
	t.Helper()
	s := f.Stats()
	if s.Fed != s.Framed+s.Skipped+s.Dropped+s.Buffered {
		t.Errorf("stats %+v: Fed != Framed+Skipped+Dropped+Buffered", s)
	}
	// One partial message while synchronised, one candidate's worth of
	// bytes while not.
	bound := 2 + f.maxLen
	if !f.Synced() {
		bound = f.bound()
	}
	if s.Buffered > int64(bound) {
		t.Errorf("stats %+v: Buffered above the bound %d (synced %v)", s, bound, f.Synced())
	}
}

// Three messages: lengths 1 (enum only: a PingRequest C→S is 04), 3 and
// 256, the last so that the header's high byte is not zero.
//
//	00 01 04                  PingRequest (wire.md 3), 1 byte
//	00 03 8c 00 00            3 bytes
//	01 00 00 01 02 … ff       256 bytes
var (
	m1 = []byte{0x04}
	m2 = []byte{0x8c, 0x00, 0x00}
	m3 = func() []byte {
		b := make([]byte, 256)
		for i := range b {
			b[i] = byte(i)
		}
		return b
	}()
	stream = frame(m1, m2, m3)
	want3  = []framed{
		{"04", FrameInfo{Offset: 0}},
		{"8c0000", FrameInfo{Offset: 3}},
		{hex.EncodeToString(m3), FrameInfo{Offset: 8}},
	}
)

func TestFramerOneShot(t *testing.T) {
	got, fs := feedChunks(NewFramer(0), stream, nil)
	if !slices.Equal(got, want3) || len(fs) != 0 {
		t.Errorf("Feed(stream) = %v, findings %v; want %v, none", got, fs, want3)
	}
}

func TestFramerEverySplit(t *testing.T) {
	// Every split into two chunks, and every split into three chunks.
	for i := 0; i <= len(stream); i++ {
		for j := i; j <= len(stream); j += 7 {
			f := NewFramer(0)
			got, fs := feedChunks(f, stream, []int{i, j})
			if !slices.Equal(got, want3) || len(fs) != 0 {
				t.Fatalf("Feed(stream cut at %d, %d) = %v, findings %v; want %v, none", i, j, got, fs, want3)
			}
			checkStats(t, f)
		}
	}
}

func TestFramerByteAtATime(t *testing.T) {
	f := NewFramer(0)
	cuts := make([]int, len(stream))
	for i := range cuts {
		cuts[i] = i
	}
	got, fs := feedChunks(f, stream, cuts)
	if !slices.Equal(got, want3) || len(fs) != 0 {
		t.Errorf("Feed(stream one byte at a time) = %v, findings %v; want %v, none", got, fs, want3)
	}
	if s := f.Stats(); s.Messages != 3 || s.Framed != int64(len(stream)) {
		t.Errorf("Stats() = %+v; want 3 messages, %d bytes framed", s, len(stream))
	}
}

func TestFramerAliasesChunk(t *testing.T) {
	f := NewFramer(0)
	var ptrs []*byte
	f.Feed(stream, func(msg []byte, _ FrameInfo) { ptrs = append(ptrs, &msg[0]) })
	want := []*byte{&stream[2], &stream[5], &stream[10]}
	if !slices.Equal(ptrs, want) {
		t.Errorf("yielded messages do not alias the chunk: %p; want %p", ptrs, want)
	}
}

func TestFramerAllocs(t *testing.T) {
	f := NewFramer(0)
	y := func([]byte, FrameInfo) {}
	f.Feed(stream[:20], y) // grow the body buffer once
	f.Feed(stream[20:], y)
	allocs := testing.AllocsPerRun(100, func() {
		f.Feed(stream[:20], y)
		f.Feed(stream[20:], y)
	})
	if allocs != 0 {
		t.Errorf("Feed allocates %v times per stream; want 0", allocs)
	}
}

// TestFramerEveryCut feeds every prefix of the stream and ends it: the
// messages wholly inside the prefix come out, and a cut inside a message is
// reported as a dropped partial message.
func TestFramerEveryCut(t *testing.T) {
	ends := []int{0, 3, 8, len(stream)} // message boundaries
	for cut := 0; cut <= len(stream); cut++ {
		f := NewFramer(0)
		got, fs := feedChunks(f, stream[:cut], nil)
		n := 0
		for n+1 < len(ends) && ends[n+1] <= cut {
			n++
		}
		if !slices.Equal(got, want3[:n]) {
			t.Errorf("Feed(stream[:%d]) = %v; want %v", cut, got, want3[:n])
		}
		boundary := slices.Contains(ends, cut)
		if boundary && len(fs) != 0 || !boundary && len(fs) != 1 {
			t.Errorf("Feed(stream[:%d]): findings %v; want %d", cut, fs, map[bool]int{true: 0, false: 1}[boundary])
		}
		if s := f.Stats(); s.Dropped != int64(cut-ends[n]) || s.Buffered != 0 {
			t.Errorf("Feed(stream[:%d]): Stats() = %+v; want %d dropped, 0 buffered", cut, s, cut-ends[n])
		}
		checkStats(t, f)
	}
}

func TestFramerFlushPartial(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"header byte", append(frame(m1), 0x00), "framing: dropped a partial message at stream offset 3: had 1 of 2 header bytes at the end of the stream"},
		{"header only", append(frame(m1), 0x00, 0x05), "framing: dropped a partial message at stream offset 3: had 2 of 7 bytes at the end of the stream"},
		{"body", append(frame(m1), 0x00, 0x05, 'h', 'e'), "framing: dropped a partial message at stream offset 3: had 4 of 7 bytes at the end of the stream"},
	}
	for _, tt := range tests {
		f := NewFramer(0)
		var got []framed
		f.Feed(tt.in, collector(&got))
		fs := f.Flush()
		if len(got) != 1 || len(fs) != 1 || fs[0].Text != tt.want || fs[0].Severity != dissect.Warn || fs[0].Group != dissect.Sequence || fs[0].Bit != -1 {
			t.Errorf("%s: Flush() = %v after %v; want [{warn sequence %q -1}] after one message", tt.name, fs, got, tt.want)
		}
	}
}

// Four messages for the resynchronisation cases:
//
//	00 03 01 02 03            offset 0
//	00 02 41 42               offset 5
//	00 05 68 65 6c 6c 6f      offset 9
//	00 01 78                  offset 16, ends at 19
var (
	r1, r2, r3, r4 = []byte{1, 2, 3}, []byte("AB"), []byte("hello"), []byte("x")
	rstream        = frame(r1, r2, r3, r4)
)

// wantFrom is the four messages of rstream after a prefix of p bytes, the
// first one found by resynchronisation after skipping skipped bytes.
func wantFrom(p, skipped int) []framed {
	w := []framed{
		{"010203", FrameInfo{Offset: 0}},
		{"4142", FrameInfo{Offset: 5}},
		{"68656c6c6f", FrameInfo{Offset: 9}},
		{"78", FrameInfo{Offset: 16}},
	}
	for i := range w {
		w[i].info.Offset += int64(p)
	}
	w[0].info.Skipped, w[0].info.Resynced = skipped, true
	return w
}

func TestFramerStartUnsynced(t *testing.T) {
	tests := []struct {
		name    string
		maxLen  int
		prefix  string // hex
		skipped int
		atEnd   bool // only the end-of-stream rule can decide
	}{
		{"on a boundary", 0, "", 0, false},
		{"zero length", 0, "00", 1, false},
		{"two zero lengths", 0, "0000", 2, false},
		// A message tail "41 42 43": 0x4142 and 0x4243 are above 4096 and
		// 0x4300 too, so three candidates fall at once.
		{"tail above maxLen", 4096, "414243", 3, false},
		// The same with the full 16-bit range: 0x4142 is a possible
		// length, but not while resynchronising (ResyncMaxLen).
		{"tail above the resync limit", 0, "414243", 3, false},
		// 0x0fff = 4095 is a possible length; the chain from it needs more
		// bytes than the stream has, so only the end rule rejects it
		// (and 0xff00 at once).
		{"long first length", 0, "0fff", 2, true},
		{"long first length above maxLen", 4000, "0fff", 2, false},
		{"ff ff", 0, "ffff", 2, false},
		// 00 01 chains to 0x0301 (769 bytes) inside rstream: undecided
		// until the end; then 0x0100 = 256 runs past the end too.
		{"false first hop", 0, "0001", 2, true},
		// 00 01 with a limit of 200: the hop to 0x0301 is rejected, and so is
		// the next candidate, 0x0100 = 256.
		{"false first hop rejected", 200, "0001", 2, false},
	}
	for _, tt := range tests {
		prefix, _ := hex.DecodeString(tt.prefix)
		in := append(prefix, rstream...)
		want := wantFrom(len(prefix), tt.skipped)
		for _, oneByte := range []bool{false, true} {
			f := NewFramer(tt.maxLen)
			f.StartUnsynced()
			var cuts []int
			if oneByte {
				for i := range in {
					cuts = append(cuts, i)
				}
			}
			var got []framed
			y := collector(&got)
			prev := 0
			for _, c := range cuts {
				f.Feed(in[prev:c], y)
				prev = c
			}
			f.Feed(in[prev:], y)
			beforeEnd := len(got)
			fs := f.End(y)
			if !slices.Equal(got, want) {
				t.Errorf("%s (one byte %v): Feed(%s + rstream) = %v; want %v", tt.name, oneByte, tt.prefix, got, want)
			}
			if tt.atEnd != (beforeEnd == 0) {
				t.Errorf("%s: %d messages before End; want them only at End: %v", tt.name, beforeEnd, tt.atEnd)
			}
			var wantFs []string
			if tt.skipped > 0 {
				wantFs = []string{"resync: skipped " + dissect.Count(tt.skipped, "byte") + " at stream offset 0"}
			}
			if texts := findingTexts(fs); !slices.Equal(texts, wantFs) {
				t.Errorf("%s: findings %q; want %q", tt.name, texts, wantFs)
			}
			checkStats(t, f)
		}
	}
}

func findingTexts(fs []dissect.Finding) []string {
	var s []string
	for _, f := range fs {
		s = append(s, f.Text)
	}
	return s
}

func TestFramerGap(t *testing.T) {
	tests := []struct {
		name     string
		before   []byte // fed before the gap
		lost     int
		after    []byte // fed after the gap
		want     []framed
		findings []string
	}{
		{
			name:   "on a boundary",
			before: frame(r1), lost: 7, after: frame(r2, r3, r4),
			want: []framed{
				{"010203", FrameInfo{Offset: 0}},
				{"4142", FrameInfo{Offset: 12, Resynced: true}},
				{"68656c6c6f", FrameInfo{Offset: 16}},
				{"78", FrameInfo{Offset: 23}},
			},
		},
		{
			// r2 is cut after its header; the gap takes "41", "42" arrives.
			name:   "inside a message",
			before: append(frame(r1), 0x00, 0x02), lost: 1, after: append([]byte{0x42}, frame(r3, r4, r1)...),
			want: []framed{
				{"010203", FrameInfo{Offset: 0}},
				{"68656c6c6f", FrameInfo{Offset: 9, Skipped: 1, Resynced: true}},
				{"78", FrameInfo{Offset: 16}},
				{"010203", FrameInfo{Offset: 19}},
			},
			findings: []string{
				"framing: dropped a partial message at stream offset 5: had 2 of 4 bytes before a gap of 1 byte",
				"resync: skipped 1 byte at stream offset 8",
			},
		},
		{
			// The gap takes r1's header: its body "01 02 03" is garbage:
			// 0x0102 = 258 and 0x0203 = 515 chain out of the data, so
			// with maxLen 100 both fall, and 0x0300 too.
			name:   "header lost",
			before: nil, lost: 2, after: frame(r1, r2, r3, r4)[2:],
			want: []framed{
				{"4142", FrameInfo{Offset: 5, Skipped: 3, Resynced: true}},
				{"68656c6c6f", FrameInfo{Offset: 9}},
				{"78", FrameInfo{Offset: 16}},
			},
			findings: []string{"resync: skipped 3 bytes at stream offset 2"},
		},
	}
	for _, tt := range tests {
		f := NewFramer(100)
		var got []framed
		y := collector(&got)
		f.Feed(tt.before, y)
		f.Gap(tt.lost)
		f.Feed(tt.after, y)
		fs := f.End(y)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: Feed, Gap(%d), Feed = %v; want %v", tt.name, tt.lost, got, tt.want)
		}
		if texts := findingTexts(fs); !slices.Equal(texts, tt.findings) {
			t.Errorf("%s: findings %q; want %q", tt.name, texts, tt.findings)
		}
		if s := f.Stats(); s.Lost != int64(tt.lost) {
			t.Errorf("%s: Stats().Lost = %d; want %d", tt.name, s.Lost, tt.lost)
		}
		checkStats(t, f)
	}
}

// TestFramerGapWhileUnsynced: bytes awaiting resynchronisation before a gap
// are skipped and reported; framing resumes after it.
func TestFramerGapWhileUnsynced(t *testing.T) {
	f := NewFramer(0)
	f.StartUnsynced()
	var got []framed
	y := collector(&got)
	f.Feed([]byte{0x00, 0x01, 0x42}, y) // 00 01: undecided
	f.Gap(4)
	f.Feed(rstream, y)
	fs := f.End(y)
	want := wantFrom(7, 0)
	if !slices.Equal(got, want) {
		t.Errorf("Feed, Gap, Feed = %v; want %v", got, want)
	}
	wantFs := []string{"resync: skipped 3 bytes at stream offset 0 before a gap of 4 bytes"}
	if texts := findingTexts(fs); !slices.Equal(texts, wantFs) {
		t.Errorf("findings %q; want %q", texts, wantFs)
	}
	checkStats(t, f)
}

func TestFramerCorruptLength(t *testing.T) {
	big := bytes.Repeat([]byte{0xee}, 256)
	tests := []struct {
		name     string
		maxLen   int
		bad      []byte // between r1 and r2 r3 r4
		skipped  int
		findings []string
	}{
		{
			// 00 00 at offset 5, then 00 00 at 6, then r2's header at 7.
			name: "zero length", bad: []byte{0x00, 0x00}, skipped: 2,
			findings: []string{"framing: length 0 at stream offset 5", "resync: skipped 2 bytes at stream offset 5"},
		},
		{
			// A 256-byte message over a 100-byte limit: its header and body
			// are skipped, no candidate inside (0x00ee, 0xeeee, 0xee00 are
			// above 100).
			name: "oversize", maxLen: 100, bad: append([]byte{0x01, 0x00}, big...), skipped: 258,
			findings: []string{"framing: length 256 above the limit 100 at stream offset 5", "resync: skipped 258 bytes at stream offset 5"},
		},
	}
	for _, tt := range tests {
		in := slices.Concat(frame(r1), tt.bad, frame(r2, r3, r4))
		for cut := 0; cut <= len(in); cut++ {
			f := NewFramer(tt.maxLen)
			got, fs := feedChunks(f, in, []int{cut})
			o := int64(5 + len(tt.bad))
			want := []framed{
				{"010203", FrameInfo{Offset: 0}},
				{"4142", FrameInfo{Offset: o, Skipped: tt.skipped, Resynced: true}},
				{"68656c6c6f", FrameInfo{Offset: o + 4}},
				{"78", FrameInfo{Offset: o + 11}},
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s (cut at %d): Feed = %v; want %v", tt.name, cut, got, want)
			}
			if texts := findingTexts(fs); !slices.Equal(texts, tt.findings) {
				t.Errorf("%s (cut at %d): findings %q; want %q", tt.name, cut, texts, tt.findings)
			}
			if fs[0].Severity != dissect.Error || fs[0].Group != dissect.Malformed || fs[1].Severity != dissect.Warn || fs[1].Group != dissect.Sequence {
				t.Errorf("%s: findings %v; want an error (malformed), then a warn (sequence)", tt.name, fs)
			}
			checkStats(t, f)
		}
	}
}

// TestFramerBounded feeds random bytes while unsynchronised: the buffer
// never holds more than one candidate needs, whatever the chunking.
func TestFramerBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for _, maxLen := range []int{0, 300} {
		f := NewFramer(maxLen)
		f.StartUnsynced()
		for off := 0; off < len(data); {
			n := min(1+rng.IntN(3000), len(data)-off)
			f.Feed(data[off:off+n], nil)
			off += n
			checkStats(t, f)
			if _, rb := f.Buffers(); rb > 2*f.bound() {
				t.Fatalf("maxLen %d: resync buffer capacity %d; want at most %d", maxLen, rb, 2*f.bound())
			}
		}
		f.Flush()
		checkStats(t, f)
	}
}

// TestFramerChunkingIndependent: whatever happens (resynchronisation
// included), the messages and findings do not depend on the chunking.
func TestFramerChunkingIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 200 {
		in := randomStream(rng)
		f := NewFramer(1 + rng.IntN(300))
		unsynced := i%2 == 0
		if unsynced {
			f.StartUnsynced()
		}
		want, wantFs := feedChunks(f, in, nil)
		var cuts []int
		for c := 0; c < len(in); c += 1 + rng.IntN(40) {
			cuts = append(cuts, c)
		}
		g := NewFramer(f.maxLen)
		if unsynced {
			g.StartUnsynced()
		}
		got, gotFs := feedChunks(g, in, cuts)
		checkPlaced(t, in, want)
		if !slices.Equal(got, want) || !slices.Equal(findingTexts(gotFs), findingTexts(wantFs)) {
			t.Fatalf("stream %x cut at %v = %v, %q; one shot = %v, %q", in, cuts, got, findingTexts(gotFs), want, findingTexts(wantFs))
		}
	}
}

// checkPlaced asserts that each message sits in data where its FrameInfo
// says, behind its length header, right after the previous message and the
// bytes skipped (data is contiguous: no gaps).
func checkPlaced(t *testing.T, data []byte, got []framed) {
	t.Helper()
	next := int64(0)
	for _, g := range got {
		msg, _ := hex.DecodeString(g.msg)
		o := g.info.Offset
		if o != next+int64(g.info.Skipped) {
			t.Fatalf("message %v: want it at %d + %d skipped", g, next, g.info.Skipped)
		}
		if o+2+int64(len(msg)) > int64(len(data)) || int(data[o])<<8|int(data[o+1]) != len(msg) || !bytes.Equal(data[o+2:o+2+int64(len(msg))], msg) {
			t.Fatalf("message %v is not in the data at its offset", g)
		}
		next = o + 2 + int64(len(msg))
	}
}

// randomStream mixes valid frames with garbage, zero and long lengths.
func randomStream(rng *rand.Rand) []byte {
	var b []byte
	for range rng.IntN(12) {
		switch rng.IntN(4) {
		case 0:
			b = append(b, byte(rng.Uint32()), byte(rng.Uint32()))
		case 1:
			b = append(b, 0, 0)
		default:
			m := make([]byte, 1+rng.IntN(40))
			for i := range m {
				m[i] = byte(rng.IntN(3))
			}
			b = append(b, frame(m)...)
		}
	}
	return b
}

func TestNewFramerMaxLen(t *testing.T) {
	for _, tt := range []struct{ in, want int }{{0, MaxFrameLen}, {-1, MaxFrameLen}, {70000, MaxFrameLen}, {1, 1}, {4096, 4096}} {
		if got := NewFramer(tt.in).maxLen; got != tt.want {
			t.Errorf("NewFramer(%d).maxLen = %d; want %d", tt.in, got, tt.want)
		}
	}
}

// FuzzFramer feeds arbitrary bytes in arbitrary chunks. Invariants: no
// panic; every byte is framed, skipped, dropped or buffered; the messages
// and findings do not depend on the chunking; a stream that never needs
// resynchronisation frames exactly like a reference parse.
func FuzzFramer(f *testing.F) {
	f.Add(stream, []byte{3, 1}, uint16(0), false)
	f.Add(rstream, []byte{0}, uint16(0), true)
	f.Add(append([]byte{0x41, 0x42, 0x43}, rstream...), []byte{1, 1, 1}, uint16(4096), true)
	f.Add(slices.Concat(frame(r1), []byte{0, 0}, frame(r2, r3, r4)), []byte{6}, uint16(0), false)
	f.Add([]byte{0xff, 0xff, 0xff}, []byte{}, uint16(0), true)
	f.Fuzz(func(t *testing.T, data, chunks []byte, maxLen uint16, unsynced bool) {
		run := func(cuts []int) ([]framed, []dissect.Finding, *Framer) {
			fr := NewFramer(int(maxLen))
			if unsynced {
				fr.StartUnsynced()
			}
			got, fs := feedChunks(fr, data, cuts)
			return got, fs, fr
		}
		var cuts []int
		c := 0
		for _, n := range chunks {
			c += int(n)
			if c > len(data) {
				break
			}
			cuts = append(cuts, c)
		}
		one, oneFs, fr := run(nil)
		got, gotFs, gr := run(cuts)
		checkStats(t, fr)
		checkStats(t, gr)
		checkPlaced(t, data, one)
		// Independently of the framer's counters: the bytes after the last
		// message are what it skipped or dropped beyond the skips the
		// messages carry.
		end, carried := 0, 0
		for _, m := range one {
			end = int(m.info.Offset) + 2 + len(m.msg)/2
			carried += m.info.Skipped
		}
		if s := fr.Stats(); int(s.Skipped+s.Dropped)-carried != len(data)-end || s.Buffered != 0 {
			t.Fatalf("stats %+v after End: %d bytes after the last message, %d skips carried", s, len(data)-end, carried)
		}
		if !slices.Equal(got, one) || !slices.Equal(findingTexts(gotFs), findingTexts(oneFs)) {
			t.Fatalf("cut at %v = %v, %q; one shot = %v, %q", cuts, got, findingTexts(gotFs), one, findingTexts(oneFs))
		}
		for _, fi := range gotFs {
			if strings.ContainsFunc(fi.Text, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("finding %q has a control character", fi.Text)
			}
		}
		if unsynced {
			return
		}
		// Reference parse: frames until the first impossible length.
		var ref []framed
		limit := fr.maxLen
		for pos := 0; pos+2 <= len(data); {
			n := int(data[pos])<<8 | int(data[pos+1])
			if n == 0 || n > limit || pos+2+n > len(data) {
				break
			}
			ref = append(ref, framed{hex.EncodeToString(data[pos+2 : pos+2+n]), FrameInfo{Offset: int64(pos)}})
			pos += 2 + n
		}
		if s := fr.Stats(); s.Skipped == 0 {
			if !slices.Equal(one, ref) {
				t.Fatalf("no resync: Feed = %v; reference %v", one, ref)
			}
		} else if !slices.Equal(one[:len(ref)], ref) {
			t.Fatalf("Feed = %v; want it to start with the reference %v", one, ref)
		}
	})
}

func ExampleFramer() {
	f := NewFramer(MaxFrameLen)
	// Kicked("bye") (wire.md 3) and a PingRequest, the second header split
	// across chunks.
	yield := func(msg []byte, info FrameInfo) { fmt.Printf("% x at offset %d\n", msg, info.Offset) }
	f.Feed([]byte{0x00, 0x06, 0x8c, 0x00, 0x00, 0x62, 0x79, 0x65, 0x00}, yield)
	f.Feed([]byte{0x01, 0x02}, yield)
	fmt.Println(f.Flush())
	// Output:
	// 8c 00 00 62 79 65 at offset 0
	// 02 at offset 8
	// []
}

// TestFramerResyncConverges joins a stream of game-sized messages (10–200
// random bytes) at every offset of its first messages: however the search
// goes, framing must end up on the true boundaries, and a join on a
// boundary must skip nothing.
func TestFramerResyncConverges(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var in []byte
	var offs []int
	var msgs []string
	for range 300 {
		m := make([]byte, 10+rng.IntN(191))
		for i := range m {
			m[i] = byte(rng.Uint32())
		}
		offs = append(offs, len(in))
		msgs = append(msgs, hex.EncodeToString(m))
		in = append(in, frame(m)...)
	}
	tail := msgs[len(msgs)-250:]
	for start := 0; start < offs[3]; start++ {
		f := NewFramer(0)
		f.StartUnsynced()
		got, _ := feedChunks(f, in[start:], nil)
		var last []string
		for _, g := range got[max(0, len(got)-250):] {
			last = append(last, g.msg)
		}
		if !slices.Equal(last, tail) {
			t.Fatalf("joined at %d: the last 250 messages are not the stream's", start)
		}
		if slices.Contains(offs, start) && (got[0].info.Skipped != 0 || got[0].info.Offset != 0) {
			t.Errorf("joined on the boundary %d: first message %v; want it at 0, nothing skipped", start, got[0])
		}
	}
}

func ExampleFramer_StartUnsynced() {
	f := NewFramer(MaxFrameLen)
	f.StartUnsynced() // joined mid-connection: "62 79 65" is the end of a message
	yield := func(msg []byte, info FrameInfo) {
		fmt.Printf("% x at offset %d, skipped %d\n", msg, info.Offset, info.Skipped)
	}
	f.Feed([]byte{0x62, 0x79, 0x65, 0x00, 0x01, 0x02, 0x00, 0x01, 0x03, 0x00, 0x01, 0x02}, yield)
	for _, fi := range f.End(yield) {
		fmt.Println(fi.Severity, fi.Group, fi.Text)
	}
	// Output:
	// 02 at offset 3, skipped 3
	// 03 at offset 6, skipped 0
	// 02 at offset 9, skipped 0
	// warn sequence resync: skipped 3 bytes at stream offset 0
}

// TestFramerStartUnsyncedMidStream: called inside a message, StartUnsynced
// drops it and resynchronises on what follows.
func TestFramerStartUnsyncedMidStream(t *testing.T) {
	f := NewFramer(0)
	var got []framed
	y := collector(&got)
	f.Feed(append(frame(r1), 0x00, 0x05, 'h'), y)
	f.StartUnsynced()
	f.Feed(append([]byte("ello"), frame(r2, r3, r4)...), y)
	fs := f.End(y)
	want := []framed{
		{"010203", FrameInfo{Offset: 0}},
		{"4142", FrameInfo{Offset: 12, Skipped: 4, Resynced: true}},
		{"68656c6c6f", FrameInfo{Offset: 16}},
		{"78", FrameInfo{Offset: 23}},
	}
	wantFs := []string{
		"framing: dropped a partial message at stream offset 5: had 3 of 7 bytes before a restart mid-stream",
		"resync: skipped 4 bytes at stream offset 8",
	}
	if !slices.Equal(got, want) || !slices.Equal(findingTexts(fs), wantFs) {
		t.Errorf("Feed, StartUnsynced, Feed = %v, %q; want %v, %q", got, findingTexts(fs), want, wantFs)
	}
	checkStats(t, f)
}
