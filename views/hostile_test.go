package views

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/scenario"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// styling matches the TUI's own escapes: SGR (CSI … m), the only sequence
// the views write into a frame's content (issue 8 point 2, step 3).
var styling = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// frameControl reports the first byte of a rendered frame, SGR styling
// removed, that a terminal would act on: any other ESC sequence, C0
// controls but newline, DEL, C1 controls (U+0080–U+009F), bidi embeddings,
// overrides, isolates and marks, and invalid UTF-8.
func frameControl(frame string) (int, rune, bool) {
	s := styling.ReplaceAllString(frame, "")
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return i, rune(s[i]), true
			}
		case r < 0x20 && r != '\n', r == 0x7f, r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			return i, r, true
		}
	}
	return 0, 0, false
}

// TestFrameControl: the checker itself finds what it must and passes the
// UI's own styling.
func TestFrameControl(t *testing.T) {
	for _, tc := range []struct {
		in  string
		bad bool
	}{
		{"\x1b[1;38;5;196mred\x1b[m\n", false},
		{"plain → text ✓", false},
		{"\x1b[2J", true},
		{"\x1b]0;title\x07", true},
		{"a\x9bb", true}, // a lone byte 0x9b: invalid UTF-8, an 8-bit CSI to some terminals
		{"a\u009bb", true},
		{"\u202e", true},
		{"\xc3\x28", true},
		{"tab\t", true},
		{"\x7f", true},
	} {
		if _, _, bad := frameControl(tc.in); bad != tc.bad {
			t.Errorf("frameControl(%q) bad = %v; want %v", tc.in, bad, tc.bad)
		}
	}
}

// decodeFile runs a capture through capture.NewReader and session.Index
// with the pipeline every command uses, keeping what was decoded before a
// read error (which becomes a capture finding, as readCapture makes it).
func decodeFile(t testing.TB, data []byte) *session.Index {
	t.Helper()
	src, err := capture.NewReader(bytes.NewReader(data), "test", capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dc := session.NewIndex(unturned.Default())
	if err := pipeline.Feed(src, dc, nil); err != nil {
		dc.Note(dissect.Conn{}, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Bit: -1, Text: termsafe.Escape(err.Error())})
	}
	return dc
}

// walk renders the model after each key and checks every frame.
func walk(t *testing.T, m Model, keys []string) int {
	t.Helper()
	frames := 0
	check := func(after string) {
		frames++
		f := m.View().Content
		if i, r, bad := frameControl(f); bad {
			s := styling.ReplaceAllString(f, "")
			t.Fatalf("frame after %s: raw %U at byte %d: %q", after, r, i, s[max(0, i-30):min(len(s), i+30)])
		}
	}
	check("load")
	for i, k := range keys {
		m = send(m, keyMsg(k))
		check(fmt.Sprintf("key %d (%q)", i+1, k))
	}
	return frames
}

// hostileKeys visits every message of a short capture in the messages
// pane with the detail and then the tables/bits pane showing, and moves
// through the connections and tables panes.
func hostileKeys(messages int) []string {
	var keys []string
	for range messages {
		keys = append(keys, "j")
	}
	keys = append(keys, "t")
	for range messages {
		keys = append(keys, "k")
	}
	for range 4 {
		keys = append(keys, "tab", "j", "j", "j", "right", "j", "j")
	}
	return append(keys, "t", "?", "?", "/", "m", "s", "g", "esc", "esc")
}

// TestHostileFramesClean renders the hostile fixture (ESC/CSI/OSC, C1,
// bidi overrides and invalid UTF-8 in listener type names, kick reasons
// and server names; lengths past the stream) through the real decoder and
// checks every rendered frame at two sizes.
func TestHostileFramesClean(t *testing.T) {
	data := readHostile(t)
	dc := decodeFile(t, data)
	if dc.Len() < 10 {
		t.Fatalf("hostile.pcapng decoded %d messages; want its 13", dc.Len())
	}
	for _, size := range [][2]int{{160, 48}, {80, 24}} {
		m := loaded(t, dc, size[0], size[1])
		n := walk(t, m, hostileKeys(dc.Len()+2))
		if !strings.Contains(screen(m), `\x1b[2J`) {
			t.Errorf("%dx%d: the first frame does not show the hostile name escaped:\n%s", size[0], size[1], screen(m))
		}
		t.Logf("%dx%d: %d frames clean", size[0], size[1], n)
	}
}

func readHostile(t *testing.T) []byte {
	t.Helper()
	s, err := scenario.ReadFile("../fixtures/scenarios/hostile.toml")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := s.Generate(&buf, scenario.PCAPNG); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestHostileScaleFramesClean renders a scale case: the out-of-order
// scenario of fixtures/scenarios/scale (per-flow cap hits, gaps, resyncs,
// thousands of messages over many connections; the second flood cut to 10
// connections to keep the test short) and checks frames while paging
// through messages and connections.
func TestHostileScaleFramesClean(t *testing.T) {
	s, err := scenario.ReadFile("../fixtures/scenarios/scale/hostile-outoforder.toml")
	if err != nil {
		t.Fatal(err)
	}
	s.Floods[1].Conns = 10
	var buf bytes.Buffer
	if _, err := s.Generate(&buf, scenario.PCAPNG); err != nil {
		t.Fatal(err)
	}
	dc := decodeFile(t, buf.Bytes())
	if dc.Len() < 6000 {
		t.Fatalf("decoded %d messages; want over 6000", dc.Len())
	}
	m := loaded(t, dc, 120, 40)
	keys := []string{"G", "g"}
	for range 20 {
		keys = append(keys, "pgdown")
	}
	keys = append(keys, "t")
	for range 3 {
		keys = append(keys, "tab", "pgdown", "j", "j", "right")
	}
	n := walk(t, m, keys)
	t.Logf("%d frames clean", n)
}
