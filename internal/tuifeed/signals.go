package tuifeed

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/capture"
)

// stopSignals makes SIGINT (kill -INT; Ctrl-C on the terminal arrives as
// a key), SIGTERM, SIGHUP and SIGQUIT quit the TUI as q does (SIGQUIT
// left the terminal in the alternate screen, raw mode and mouse reporting
// under a goroutine dump; issue 29), and SIGTSTP suspend it with the
// terminal restored (suspendSignals): bubbletea restores
// the terminal (main screen, mouse reporting off), RunTUI closes src,
// which flushes and closes a --write file, and the command exits 0
// (SECURITY.md "Signals and IO faults"). Should the program not finish
// within signalGrace of the signal (a terminal that is gone may block the
// restore), src is closed and the process exits 0 all the same. ran is
// closed when the program has returned. The returned func stops listening.
func stopSignals(prog *tea.Program, src capture.Source, ran <-chan struct{}) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	stopSuspend := suspendSignals(prog)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		prog.Quit()
		select {
		case <-ran:
		case <-time.After(signalGrace):
			src.Close()
			os.Exit(0) // a signalled stop is a normal one (exit 0)
		}
	}()
	return func() {
		signal.Stop(sigs)
		stopSuspend()
		close(done)
	}
}

// signalGrace is how long a signalled TUI may take to restore the
// terminal and return before the process exits without it.
const signalGrace = 3 * time.Second
