package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTUISignals: SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to `open` (not
// keys on its terminal) each quit it as q does: exit 0, the terminal back
// on its main screen with mouse reporting off (issue 17 point 6; SIGQUIT,
// issue 29, left the terminal as it was under a goroutine dump). live's are in
// TestProcessFaults (LiveTUICtrlC), which needs capture privileges.
func TestTUISignals(t *testing.T) {
	needTmux(t, "TUI signal test")
	fixture, err := filepath.Abs(filepath.Join(capturesDir, "usmn-basic.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			s := &tmuxSession{t: t, socket: fmt.Sprintf("usmnscope-sig-%d-%d", os.Getpid(), sig)}
			t.Cleanup(func() { _, _ = s.tmux("kill-server") })
			if out, err := s.tmux("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40",
				fmt.Sprintf("TERM=xterm-256color %q open %q; echo usmnscope-exited-$?; sleep 30", bin, fixture)); err != nil {
				t.Fatalf("tmux new-session: %v %s", err, out)
			}
			s.waitFor("the capture to load", contains("22 msgs"))
			if on := s.flags(); on != "1 1" {
				t.Fatalf("while open runs: alternate screen and mouse = %q; want 1 1 (the check below would prove nothing)", on)
			}
			pane, err := s.tmux("list-panes", "-t", "e2e", "-F", "#{pane_pid}")
			if err != nil {
				t.Fatalf("list-panes: %v %s", err, pane)
			}
			if err := syscall.Kill(childOf(t, strings.TrimSpace(pane)), sig); err != nil {
				t.Fatal(err)
			}
			s.waitFor("open to exit 0", contains("usmnscope-exited-0"))
			s.restored(sig)
		})
	}
}

// TestTUISuspend: SIGTSTP sent to `open` run from an interactive shell
// gives the terminal back (main screen, mouse reporting off) and stops the
// process, the shell's job control takes over; `fg` brings the TUI back,
// redrawn, and q still quits it with exit 0 (issue 29: it stopped in the
// alternate screen).
func TestTUISuspend(t *testing.T) {
	needTmux(t, "TUI suspend test")
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed: the test needs a shell with job control")
	}
	fixture, err := filepath.Abs(filepath.Join(capturesDir, "usmn-basic.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("usmnscope-tstp-%d", os.Getpid())}
	t.Cleanup(func() { _, _ = s.tmux("kill-server") })
	if out, err := s.tmux("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", "env -i PATH=/usr/bin:/bin TERM=xterm-256color PS1='$ ' bash --norc -i"); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	s.keys(fmt.Sprintf("%q open %q", bin, fixture), "Enter")
	s.waitFor("the capture to load", contains("22 msgs"))
	if on := s.flags(); on != "1 1" {
		t.Fatalf("while open runs: alternate screen and mouse = %q; want 1 1", on)
	}
	pane, err := s.tmux("list-panes", "-t", "e2e", "-F", "#{pane_pid}")
	if err != nil {
		t.Fatalf("list-panes: %v %s", err, pane)
	}
	pid := childOf(t, strings.TrimSpace(pane))
	if err := syscall.Kill(pid, syscall.SIGTSTP); err != nil {
		t.Fatal(err)
	}
	s.restored(syscall.SIGTSTP)
	s.waitFor("the shell to report the stopped job", contains("Stopped"))
	s.keys("fg; echo usmnscope-fg-$?", "Enter")
	s.waitFor("the TUI to be redrawn", func(sc string) bool { return strings.Contains(sc, "22 msgs") && s.flags() == "1 1" })
	s.keys("q")
	s.waitFor("open to exit 0", contains("usmnscope-fg-0"))
	s.restored(syscall.SIGTSTP)
}

// flags returns tmux's "alternate_on mouse_any_flag" of the pane: "0 0"
// once a program restored the terminal.
func (s *tmuxSession) flags() string {
	s.t.Helper()
	out, err := s.tmux("display-message", "-p", "-t", "e2e", "#{alternate_on} #{mouse_any_flag}")
	if err != nil {
		s.t.Fatalf("display-message: %v %s", err, out)
	}
	return strings.TrimSpace(out)
}

// restored fails unless the pane is back on the main screen with mouse
// reporting off, within a few seconds of sig.
func (s *tmuxSession) restored(sig syscall.Signal) {
	s.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.flags() != "0 0" {
		if time.Now().After(deadline) {
			sc, _ := s.screen()
			s.t.Fatalf("after %v: alternate screen and mouse reporting = %q; want 0 0 (terminal restored); screen:\n%s", sig, s.flags(), sc)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
