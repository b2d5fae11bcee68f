package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/views"
)

// loadRPCFixture decodes a ULinkRPC fixture capture as `usmnscope open
// --contracts fixtures/ulinkrpc/contracts` does, through pipeline.Open.
func loadRPCFixture(t *testing.T, name string) *session.Index {
	t.Helper()
	p := unturned.Default()
	rp, err := newRPC(unturned.RPCProfile{}, filepath.Join(rpcFixturesDir, "contracts"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := pipeline.Open(pipeline.Options{Config: pipeline.Config{Profile: p, RPC: rp}, InMemory: true, Path: filepath.Join(rpcFixturesDir, name+".pcapng")})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Source.Close()
	if err := d.Feed(nil); err != nil {
		t.Fatalf("feed %s: %v", name, err)
	}
	dc := d.Index
	return dc
}

// TestGoldenTUIULinkRPC runs the whole program over ULinkRPC fixture
// captures decoded by the real index (issue 15): the connection with its
// transport, rpc.Line's rows, the layer tree of a hostile payload, the
// bits of an envelope field and the per-method tables, 80×24 and 160×48.
func TestGoldenTUIULinkRPC(t *testing.T) {
	for _, sc := range []struct {
		name, fixture string
		keys          []string
	}{
		{"ulinkrpc-tcp", "tcp-json", []string{":", "1", "4", "enter", "tab", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j"}},
		{"ulinkrpc-tables", "tcp-json", []string{":", "2", "4", "enter", "t"}},
		{"ulinkrpc-kcp", "kcp-memorypack", []string{"tab", "tab", "w", "w"}},
	} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			name := sc.name + "-" + itoaSize(sz)
			t.Run(name, func(t *testing.T) {
				dc := loadRPCFixture(t, sc.fixture)
				m := views.New(dc, views.Config{Name: sc.fixture + ".pcapng", Parse: parseFilter})
				final := runProgram(t, m, sz[0], sz[1], sc.keys)
				raw := final.View().Content
				for _, bad := range []string{"\x07", "\x1b]", "\u202e", "\u009b", "\x1b[2J"} {
					if strings.Contains(raw, bad) {
						t.Errorf("screen holds raw %q", bad)
					}
				}
				tuiGolden(t, name, ansi.Strip(raw))
			})
		}
	}
}

// TestTUIULinkRPCPair: over the real index, enter goes from a Request to
// its Response and back, as the records' pair says.
func TestTUIULinkRPCPair(t *testing.T) {
	dc := loadRPCFixture(t, "tcp-json")
	if dc.Len() != 26 {
		t.Fatalf("tcp-json: %d messages in the index; want its 26 ULinkRPC records", dc.Len())
	}
	m := views.New(dc, views.Config{Name: "tcp-json.pcapng", Parse: parseFilter})
	for _, tc := range []struct {
		keys []string
		want int
	}{
		{[]string{"enter"}, 2},
		{[]string{"enter", "enter"}, 1},
		{[]string{":", "1", "3", "enter", "enter"}, 12},
		{[]string{":", "1", "3", "enter", "enter", "enter"}, 13},
	} {
		if got := runProgram(t, m, 160, 48, tc.keys).Selected(); got != tc.want {
			t.Errorf("keys %q: selected %d; want %d", tc.keys, got, tc.want)
		}
	}
}

// TestTUIEndToEndULinkRPC builds usmnscope and opens the tcp-json
// ULinkRPC fixture with its contracts in tmux (`open --contracts`): the
// connection with its transport, a Request row with its method, enter to
// the Response and the per-method tables, on what tmux shows.
func TestTUIEndToEndULinkRPC(t *testing.T) {
	needTmux(t, "end-to-end TUI test")
	fixture, err := filepath.Abs(filepath.Join(rpcFixturesDir, "tcp-json.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	contracts, err := filepath.Abs(filepath.Join(rpcFixturesDir, "contracts"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("usmnscope-e2e-rpc-%d", os.Getpid())}
	t.Cleanup(func() { _, _ = s.tmux("kill-server") })
	if out, err := s.tmux("new-session", "-d", "-s", "e2e", "-x", "160", "-y", "48",
		fmt.Sprintf("TERM=xterm-256color %q open --contracts %q %q; echo usmnscope-exited-$?; sleep 30", bin, contracts, fixture)); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	// Loaded, and the rows in view read: on a loaded machine the rows
	// can still say "not decoded yet" when the counts are in.
	sc := s.waitFor("the capture to load", func(sc string) bool {
		return strings.Contains(sc, "26 msgs") && strings.Contains(sc, "Messages: all") && !strings.Contains(sc, "(not decoded yet)")
	})
	for _, want := range []string{"ulinkrpc tcp", "#1 IPlayerService.LoginAsync", `error "\x1b]0;owned\x07 \u202eevil"`} {
		if !strings.Contains(sc, want) {
			t.Errorf("screen lacks %q:\n%s", want, sc)
		}
	}
	s.keys("Enter")
	s.waitFor("the pair", contains("message 1 → its pair 2"))
	s.keys("t")
	sc = s.waitFor("the tables", contains("Tables as of message 2"))
	if !strings.Contains(sc, "IPlayerService.LoginAsync 1.1     1    1    0    0  0.22/0.22/0.22 ms") {
		t.Errorf("tables lack LoginAsync as of message 2:\n%s", sc)
	}
	s.keys("q")
	s.retry("the program to exit", contains("usmnscope-exited-0"), []string{"q"})
}
