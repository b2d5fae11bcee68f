//go:build unix

package tuifeed

import (
	"os"
	"os/signal"
	"syscall"

	tea "charm.land/bubbletea/v2"
)

// suspendSignals makes SIGTSTP (kill -TSTP; Ctrl-Z on the terminal arrives
// as a key) suspend the TUI as a shell expects, through bubbletea's
// Suspend: the terminal is given back (main screen, cooked mode, mouse
// reporting off), the process group is stopped, and once continued (`fg`)
// the TUI takes the terminal again and redraws. Before, the default action
// stopped the process in the alternate screen (issue 29).
//
// Suspend stops the group by sending it SIGTSTP, but once os/signal has
// caught SIGTSTP the Go runtime keeps its handler, which would then ignore
// it: that second SIGTSTP, which comes while suspending, is turned into a
// SIGSTOP of the group here. The returned func stops listening.
func suspendSignals(prog *tea.Program) (stop func()) {
	tstp := make(chan os.Signal, 1)
	signal.Notify(tstp, syscall.SIGTSTP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-tstp:
			case <-done:
				return
			}
			prog.Send(tea.SuspendMsg{})
			select {
			case <-tstp: // Suspend's own, once the terminal is given back
			case <-done:
				return
			}
			// Returns once the group is continued; Suspend then takes the
			// terminal back on its SIGCONT.
			_ = syscall.Kill(0, syscall.SIGSTOP)
		}
	}()
	return func() {
		signal.Stop(tstp)
		close(done)
	}
}
