package views

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// The copy command (issue 30; the config file's copy_command): y pipes
// the text to a program, as Charm apps let one name a clipboard tool
// (wl-copy, xclip -selection clipboard, pbcopy), instead of OSC 52, which
// a terminal may drop without a word. The program runs in a command, off
// the UI goroutine; its answer comes back as copiedMsg.

// copyTimeout bounds a copy program that never ends (it waits for a
// clipboard that is not there).
const copyTimeout = 10 * time.Second

// copyWaitDelay is how long the copy waits, once the program has ended,
// for output pipes a child it left behind still holds (wl-copy and xclip
// fork a process that keeps the clipboard).
const copyWaitDelay = 500 * time.Millisecond

// copiedMsg says how the copy program ended.
type copiedMsg struct {
	what string
	prog string
	err  error
}

// runCopy returns the command that runs argv with text on its standard
// input.
func runCopy(argv []string, what, text string) tea.Cmd {
	argv = append([]string(nil), argv...)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), copyTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Stdin = strings.NewReader(text)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		cmd.WaitDelay = copyWaitDelay
		err := cmd.Run()
		if errors.Is(err, exec.ErrWaitDelay) {
			err = nil // it ended well; a child it left keeps the pipe
		}
		if err != nil {
			if s := strings.TrimSpace(errOut.String()); s != "" {
				if len(s) > 200 {
					s = s[:200] + "…"
				}
				err = fmt.Errorf("%w: %s", err, s)
			}
		}
		return copiedMsg{what: what, prog: argv[0], err: err}
	}
}

// copied is the note a copiedMsg leaves.
func (c copiedMsg) note() string {
	if c.err != nil {
		return "copy: " + termsafe.Escape(c.prog+": "+c.err.Error())
	}
	return "copied " + c.what + " with " + termsafe.Escape(c.prog)
}
