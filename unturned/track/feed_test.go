package track

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/listeners"
)

// framed is one message a fakeHost was handed.
type framed struct {
	dir dissect.Dir
	msg string
	seq uint64
}

// fakeHost records what a Conn hands its host while it is only fed (no
// message is numbered back to it): msgs in short, all whole (their bytes
// copied: they are valid during the call only).
type fakeHost struct {
	msgs     []framed
	all      []decode.FramedMsg
	findings []dissect.Finding
}

func (h *fakeHost) Message(f *decode.FramedMsg) {
	h.msgs = append(h.msgs, framed{f.Dir, string(f.Msg), f.At.Seq})
	g := *f
	g.Msg = append([]byte(nil), f.Msg...)
	h.all = append(h.all, g)
}
func (h *fakeHost) Finding(f dissect.Finding) { h.findings = append(h.findings, f) }
func (h *fakeHost) Bytes(int32) []byte        { return nil }
func (h *fakeHost) Decode(int32, dissect.Dir, unturned.State, []byte, bool) *unturned.Decoded {
	return &unturned.Decoded{}
}
func (h *fakeHost) Undecided(int32)                                        {}
func (h *fakeHost) Extra(int32, ...dissect.Finding)                        {}
func (h *fakeHost) Listener(int32, *listeners.Op, *unturned.Decoded, bool) {}
func (h *fakeHost) Asked(int32)                                            {}
func (h *fakeHost) Link(int32, int32, time.Duration)                       {}
func (h *fakeHost) Time(int32) int64                                       { return 0 }
func (h *fakeHost) Committed(int32)                                        {}
func (h *fakeHost) Summary(*Summary)                                       {}

// newConn is a new connection's state, with history or not, reporting to
// h.
func newConn(history bool, h Host) *Conn {
	lim := unturned.DefaultLimits()
	c := &Conn{}
	k := NewCapture(unturned.Default(), &lim, history, func(dissect.Finding) {}, func(b []byte) string { return string(b) })
	k.Init(c, h)
	return c
}

// TestHoldingAbandonOldest: a connection joined mid-stream holds the bytes
// of each direction until a chain of headers decides them; Holding is the
// earliest event among both directions' held bytes, and Abandon settles
// the direction holding the oldest first, its messages with their chunks'
// events (outputs.md "Ordering").
func TestHoldingAbandonOldest(t *testing.T) {
	h := &fakeHost{}
	c := newConn(false, h)
	c.MidStream()
	// Two whole messages each, with no third header after them: not yet
	// a chain resynchronisation trusts (wire.md 2).
	two := []byte{0, 3, 'a', 'b', 'c', 0, 2, 'd', 'e'}
	c.Bytes(dissect.S2C, two, decode.Stamp{Frame: 1, Seq: 7})
	c.Bytes(dissect.C2S, two, decode.Stamp{Frame: 2, Seq: 9})
	if seq, ok := c.Holding(); !ok || seq != 7 {
		t.Fatalf("Holding() = %d, %v; want 7, true", seq, ok)
	}
	if len(h.msgs) != 0 {
		t.Fatalf("framed %v before the chain was decided; want none", h.msgs)
	}
	for k, want := range []struct {
		dir      dissect.Dir // the direction Abandon settles
		at       uint64      // the event its messages came in
		holdSeq  uint64      // Holding after it
		holdLeft bool
	}{{dissect.S2C, 7, 9, true}, {dissect.C2S, 9, 0, false}} {
		before := len(h.msgs)
		c.Abandon()
		got := h.msgs[before:]
		if len(got) != 2 || got[0] != (framed{want.dir, "abc", want.at}) || got[1] != (framed{want.dir, "de", want.at}) {
			t.Errorf("Abandon %d framed %v; want abc and de of %v at event %d", k, got, want.dir, want.at)
		}
		if seq, ok := c.Holding(); ok != want.holdLeft || ok && seq != want.holdSeq {
			t.Errorf("after Abandon %d: Holding() = %d, %v; want %d, %v", k, seq, ok, want.holdSeq, want.holdLeft)
		}
	}
}

// TestBytesChunking: however a direction's bytes are cut into chunks, a
// Conn hands its host the same messages (bytes, end offsets, Start), each
// stamped with the time, frame and event of the chunk that held its last
// byte; a message it says lies in the capture file (At.InFile) lies there
// at At.File; fed whole, every message lies in the file. Joined
// mid-stream, the messages a resynchronisation frames late keep their
// chunks' stamps too (wire.md 2, outputs.md "Ordering").
func TestBytesChunking(t *testing.T) {
	var stream []byte
	for _, body := range []string{"hello", "ab", strings.Repeat("x", 300), "end", "tail"} {
		stream = append(stream, byte(len(body)>>8), byte(len(body)))
		stream = append(stream, body...)
	}
	every := func(n int) []int { // chunk ends every n bytes
		var ends []int
		for e := n; e < len(stream); e += n {
			ends = append(ends, e)
		}
		return append(ends, len(stream))
	}
	t0 := time.Unix(1700000000, 0)
	const fileGap = 1000 // each chunk lies in the file this far after the previous one
	var whole []decode.FramedMsg
	for _, tc := range []struct {
		name string
		mid  bool  // joined mid-stream (MidStream)
		ends []int // where the chunks end
	}{
		{"one chunk", false, every(len(stream))},
		{"every byte", false, every(1)},
		{"every 3 bytes", false, every(3)},
		{"split inside the long body", false, []int{9, 20, 200, len(stream)}},
		{"mid-stream, one chunk", true, every(len(stream))},
		{"mid-stream, every byte", true, every(1)},
	} {
		h := &fakeHost{}
		c := newConn(true, h)
		if tc.mid {
			c.MidStream()
		}
		file := make([]byte, fileGap*len(tc.ends)+len(stream))
		from := 0
		for j, e := range tc.ends {
			at := decode.Stamp{Frame: j + 1, Time: t0.Add(time.Duration(j) * time.Second), Seq: uint64(j + 1), File: int64(fileGap*j + from), InFile: true}
			copy(file[at.File:], stream[from:e])
			c.Bytes(dissect.S2C, stream[from:e], at)
			from = e
		}
		c.End(decode.Stamp{Seq: uint64(len(tc.ends) + 1)})
		if whole == nil {
			whole = h.all // the first case's: one chunk, from the start
			if len(whole) != 5 {
				t.Fatalf("%s: Bytes = %d messages; want the 5 fed", tc.name, len(whole))
			}
		}
		if len(h.all) != len(whole) {
			t.Errorf("%s: Bytes = %d messages; want %d", tc.name, len(h.all), len(whole))
			continue
		}
		for k, got := range h.all {
			w := whole[k]
			if got.Dir != w.Dir || !bytes.Equal(got.Msg, w.Msg) || got.End != w.End || got.Start != (w.Start && !tc.mid) {
				t.Errorf("%s: Bytes message %d = %v %q end %d start %v; want %v %q end %d start %v", tc.name, k, got.Dir, got.Msg, got.End, got.Start, w.Dir, w.Msg, w.End, w.Start && !tc.mid)
			}
			j := 0 // the chunk holding the message's last byte
			for tc.ends[j] < int(got.End) {
				j++
			}
			if got.At.Seq != uint64(j+1) || got.At.Frame != j+1 || !got.At.Time.Equal(t0.Add(time.Duration(j)*time.Second)) {
				t.Errorf("%s: Bytes message %d (end %d) stamp = frame %d seq %d %v; want chunk %d's", tc.name, k, got.End, got.At.Frame, got.At.Seq, got.At.Time, j+1)
			}
			if got.At.InFile && !bytes.Equal(file[got.At.File:got.At.File+int64(len(got.Msg))], got.Msg) {
				t.Errorf("%s: Bytes message %d File = %d; the file holds %q there, not %q", tc.name, k, got.At.File, file[got.At.File:got.At.File+int64(len(got.Msg))], got.Msg)
			}
			if len(tc.ends) == 1 && !tc.mid && !got.At.InFile {
				t.Errorf("%s: Bytes message %d InFile = false; want it in the file (fed whole)", tc.name, k)
			}
		}
	}
}

// TestChunkSynced: Chunk reports whether the fed direction's framer is
// synchronised after the bytes, which is what lets the host skip Holding.
func TestChunkSynced(t *testing.T) {
	whole := []byte{0, 3, 'a', 'b', 'c', 0, 2, 'd', 'e'}
	for _, tc := range []struct {
		name      string
		midStream bool
		dir       dissect.Dir
		data      []byte
		want      bool
	}{
		{"whole messages from the start", false, dissect.C2S, whole, true},
		{"a partial message from the start", false, dissect.S2C, whole[:4], true},
		{"joined mid-stream, no chain yet", true, dissect.C2S, whole, false},
		{"not a direction", false, dissect.S2C + 1, whole, true},
	} {
		c := newConn(false, &fakeHost{})
		if tc.midStream {
			c.MidStream()
		}
		if got := c.Chunk(tc.dir, tc.data, time.Time{}, 1, 1, -1); got != tc.want {
			t.Errorf("%s: Chunk(%v, % x) = %v; want %v", tc.name, tc.dir, tc.data, got, tc.want)
		}
		if _, holding := c.Holding(); holding == tc.want && tc.dir <= dissect.S2C {
			t.Errorf("%s: Holding() = %v after Chunk said synchronised %v; want the opposite", tc.name, holding, tc.want)
		}
	}
}
