//go:build !unix

package tuifeed

import tea "charm.land/bubbletea/v2"

// suspendSignals does nothing where there is no SIGTSTP.
func suspendSignals(*tea.Program) (stop func()) { return func() {} }
