package views

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
)

// guardStore is a capture file (session.Store) that fails the test when it
// is read from the UI goroutine, that is while New, Update or View runs:
// IO must reach the UI only as messages of commands.
type guardStore struct {
	t     *testing.T
	r     *bytes.Reader
	inUI  atomic.Bool
	reads atomic.Int64
}

func (g *guardStore) ReadAt(p []byte, off int64) (int, error) {
	if g.inUI.Load() {
		g.t.Errorf("the capture file was read at offset %d inside New, Update or View", off)
	}
	g.reads.Add(1)
	return g.r.ReadAt(p, off)
}

// ui runs f as the UI goroutine would: reading the store then fails.
func (g *guardStore) ui(f func()) {
	g.inUI.Store(true)
	defer g.inUI.Store(false)
	f()
}

// storedIndex returns an index whose messages all lie in a "file" read
// through a guardStore: n one-byte pings each way on fake.Vanilla, each
// framed with its 2-byte length (wire.md 1.2).
func storedIndex(t *testing.T, n int) (*session.Index, *guardStore) {
	var c2s, s2c []byte
	for i := range n {
		for _, d := range []dissect.Dir{dissect.C2S, dissect.S2C} {
			data := fake.Ping(i+1, fake.Vanilla, d, -1).Data
			frame := append([]byte{0, byte(len(data))}, data...)
			if d == dissect.C2S {
				c2s = append(c2s, frame...)
			} else {
				s2c = append(s2c, frame...)
			}
		}
	}
	g := &guardStore{t: t, r: bytes.NewReader(append(append([]byte(nil), c2s...), s2c...))}
	ix := session.NewIndex(nil)
	ix.SetStore(g)
	ix.DataAt(fake.Vanilla, dissect.C2S, c2s, fake.T0, 1, 0)
	ix.DataAt(fake.Vanilla, dissect.S2C, s2c, fake.T0, 2, int64(len(c2s)))
	ix.Finish()
	if file, memory := ix.Placement(); file != 2*n || memory != 0 {
		t.Fatalf("Placement() = %d, %d; want every message in the file (%d, 0)", file, memory, 2*n)
	}
	return ix, g
}

// guarded drives a Model as the program loop does, with Update and View
// on the UI goroutine (guarded) and the commands they return run apart
// from them, their messages delivered back through Update.
type guarded struct {
	g       *guardStore
	m       Model
	pending []tea.Cmd // commands returned but not run yet
}

func (d *guarded) send(msg tea.Msg) {
	var cmd tea.Cmd
	d.g.ui(func() {
		next, c := d.m.Update(msg)
		d.m, cmd = next.(Model), c
		_ = d.m.View()
	})
	if cmd != nil {
		d.pending = append(d.pending, cmd)
	}
}

// settle runs the pending commands (off the UI goroutine) and delivers
// their messages, until none are left.
func (d *guarded) settle() {
	for i := 0; len(d.pending) > 0 && i < 1000; i++ {
		cmd := d.pending[0]
		d.pending = d.pending[1:]
		for _, msg := range run(cmd) {
			d.send(msg)
		}
	}
}

func (d *guarded) keys(keys ...string) {
	for _, k := range keys {
		d.send(keyMsg(k))
		d.settle()
	}
}

// TestNoFileReadInUpdateOrView drives the TUI over an index whose message
// bytes are all in the capture file: moving, filtering, the tables, go-to.
// Every message shown is read back, and only by commands.
func TestNoFileReadInUpdateOrView(t *testing.T) {
	ix, g := storedIndex(t, 20)
	d := &guarded{g: g}
	g.ui(func() {
		d.m = New(ix, Config{Name: "stored.pcapng", Parse: testParse})
		d.pending = append(d.pending, d.m.Init())
	})
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.send(ProgressMsg{Fraction: 1, Done: true})
	d.settle()
	check := func(what string, want int) {
		t.Helper()
		if d.m.Selected() != want {
			t.Fatalf("%s: selected %d; want %d", what, d.m.Selected(), want)
		}
		if dm := d.m.Detail().Message(); dm == nil || dm.N != want {
			t.Fatalf("%s: the detail pane does not show message %d", what, want)
		}
		var sc string
		g.ui(func() { sc = ansi.Strip(d.m.View().Content) })
		if strings.Contains(sc, "not decoded yet") {
			t.Fatalf("%s: rows in view were not read:\n%s", what, sc)
		}
	}
	check("opened", 1)
	d.keys("j", "j", "G")
	check("moved", 40)
	d.keys("/", "d", "i", "r", " ", "=", "=", " ", "s", "2", "c", "enter")
	if !d.m.Messages().Filtered() || d.m.Messages().Len() != 20 {
		t.Fatalf("dir == s2c lists %d messages; want 20", d.m.Messages().Len())
	}
	d.keys("g", "t")
	check("filtered", 21)
	if tb := d.m.Tables().Tables(); tb == nil || tb.AsOf != 21 {
		t.Fatalf("tables as of message 21 not shown: %+v", tb)
	}
	d.keys("esc", ":", "5", "enter")
	check("go to 5", 5)
	if g.reads.Load() == 0 {
		t.Fatal("the store was never read: the test proves nothing")
	}
}

// TestDetailFollowsTheCursor: a detail read for a message the cursor has
// left by the time it arrives is dropped; the pane shows the message under
// the cursor whatever order the reads come back in.
func TestDetailFollowsTheCursor(t *testing.T) {
	ix, g := storedIndex(t, 5)
	d := &guarded{g: g}
	g.ui(func() { d.m = New(ix, Config{Name: "stored.pcapng", Parse: testParse}) })
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.send(ProgressMsg{Fraction: 1, Done: true})
	d.settle()
	d.send(keyMsg("j")) // reads message 2
	d.send(keyMsg("j")) // reads message 3
	if d.m.Selected() != 3 || len(d.pending) != 2 {
		t.Fatalf("selected %d with %d reads pending; want 3 with 2", d.m.Selected(), len(d.pending))
	}
	// The later read arrives first, then the earlier one.
	d.pending[0], d.pending[1] = d.pending[1], d.pending[0]
	d.settle()
	if dm := d.m.Detail().Message(); dm == nil || dm.N != 3 {
		t.Fatalf("detail shows %v; want message 3", dm)
	}
}

func TestFocusString(t *testing.T) {
	for _, tt := range []struct {
		f    Focus
		want string
	}{{FocusConns, "conns"}, {FocusTables, "tables"}, {Focus(9), "Unknown(9)"}} {
		if got := tt.f.String(); got != tt.want {
			t.Errorf("Focus(%d).String() = %q; want %q", tt.f, got, tt.want)
		}
	}
}
