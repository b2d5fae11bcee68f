package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxSession drives the real binary in a detached tmux session on a
// private server socket, so it never touches the user's tmux.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func (s *tmuxSession) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	return string(out), err
}

func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		if out, err := s.tmux("send-keys", "-t", "e2e", k); err != nil {
			s.t.Fatalf("send-keys %q: %v %s", k, err, out)
		}
	}
}

// screen returns the pane's text; a failed capture reads as no screen at
// all, so a check for something's absence cannot pass on it.
func (s *tmuxSession) screen() (string, bool) {
	out, err := s.tmux("capture-pane", "-p", "-t", "e2e")
	return out, err == nil && strings.TrimSpace(out) != ""
}

// waitFor polls the pane until ok holds, failing with the last screen.
func (s *tmuxSession) waitFor(what string, ok func(string) bool) string {
	s.t.Helper()
	return s.retry(what, ok, nil)
}

// retry is waitFor that sends keys again every two seconds while ok does
// not hold: a lone Escape or a q can be swallowed on a loaded machine (an
// Escape still waiting for the input reader's 50 ms timeout joins the next
// key as alt+key). ok must hold on three captures in a row, 50 ms apart, so
// a screen caught mid-redraw cannot pass a check.
func (s *tmuxSession) retry(what string, ok func(string) bool, again []string) string {
	s.t.Helper()
	start := time.Now()
	deadline, resend := start.Add(40*time.Second), start.Add(2*time.Second)
	var last string
	held := 0
	for {
		sc, captured := s.screen()
		if captured {
			last = sc
			if ok(sc) {
				if held++; held == 3 {
					return sc
				}
			} else {
				held = 0
			}
		}
		now := time.Now()
		if now.After(deadline) {
			s.t.Fatalf("timed out waiting for %s; screen:\n%s", what, last)
		}
		if len(again) > 0 && held == 0 && now.After(resend) {
			s.keys(again...)
			resend = now.Add(2 * time.Second)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func contains(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

// TestTUIEndToEnd builds usmnscope, opens the USMN fixture in tmux, selects
// the USMN connection, opens the tables as of a message, filters by a
// listener and moves the bit cursor, asserting on what tmux shows.
func TestTUIEndToEnd(t *testing.T) {
	needTmux(t, "end-to-end TUI test")
	fixture, err := filepath.Abs(filepath.Join(capturesDir, "usmn-basic.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fixture); err != nil {
		t.Skipf("fixture missing: %v", err)
	}
	bin := buildBinary(t)

	s := &tmuxSession{t: t, socket: fmt.Sprintf("usmnscope-e2e-%d", os.Getpid())}
	t.Cleanup(func() { _, _ = s.tmux("kill-server") })
	// remain-on-exit keeps the pane after q so the exit can be checked.
	if out, err := s.tmux("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40",
		fmt.Sprintf("TERM=xterm-256color %q open %q; echo usmnscope-exited-$?; sleep 30", bin, fixture)); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	s.waitFor("the capture to load", func(sc string) bool {
		return strings.Contains(sc, "22 msgs") && strings.Contains(sc, "Messages: all")
	})

	// Select the USMN connection in the connections pane.
	s.keys("BTab", "j")
	sc := s.waitFor("the connection's messages", contains("Messages: 10.0.0.2:50412-10.0.0.1:27016"))
	if !strings.Contains(sc, "usmn C/S wide:c2s,s2c") {
		t.Errorf("connection line lacks the USMN state:\n%s", sc)
	}

	// Go to message 10 (TellClientListenerId) and open the tables as of it.
	s.keys(":", "1", "0", "Enter", "t")
	sc = s.waitFor("the tables", contains("Tables as of message 10"))
	for _, want := range []string{"* s1    Sample.InventoryListener", "* c4002 → s1"} {
		if !strings.Contains(sc, want) {
			t.Errorf("tables lack %q:\n%s", want, sc)
		}
	}

	// Filter by server listener 1: only its messages remain.
	s.keys("j", "j", "Enter")
	sc = s.waitFor("the listener filter", contains("listener: server 1"))
	list := section(sc, " Messages:", " Detail:")
	if strings.Contains(list, "srv#0") || !strings.Contains(list, "srv#1") {
		t.Errorf("listener 1 filter shows other listeners:\n%s", list)
	}

	// Bits: move the cursor three bits right; the field under it is named.
	s.keys("t", "l", "l", "l")
	sc = s.waitFor("the bit cursor", contains("bit 3 "))
	if !strings.Contains(sc, "Bits (LSB first)  bit 3  enum @0+") {
		t.Errorf("bit 3 not shown as part of the enum:\n%s", sc)
	}

	// Display filter with an error, then quit.
	s.keys("/", "msg~", "Bogus", " ", "x")
	s.waitFor("the filter error", contains("← unexpected"))
	// A lone Escape followed at once by a key reads as alt+key: let it land.
	// Closed means the typed line is gone from a fully drawn screen (its
	// help line shows), so a half-drawn or failed capture cannot pass.
	s.keys("Escape")
	s.retry("the filter bar to close", func(sc string) bool {
		return !strings.Contains(sc, "/msg~Bogus") && strings.Contains(sc, "q quit")
	}, []string{"Escape"})
	// Past the reader's Escape timeout, so q is a key of its own.
	time.Sleep(200 * time.Millisecond)
	s.keys("q")
	s.retry("the program to exit", contains("usmnscope-exited-0"), []string{"q"})
}

// section returns the lines of sc from the one starting with from up to
// the one containing to.
func section(sc, from, to string) string {
	i := strings.Index(sc, from)
	if i < 0 {
		return ""
	}
	rest := sc[i:]
	if j := strings.Index(rest, to); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// needTmux skips test (named what in the reason) without tmux or with
// -short.
func needTmux(t *testing.T, what string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (.ci/run installs it): skipping the " + what)
	}
	if testing.Short() {
		t.Skip("-short: skipping the " + what)
	}
}
