package views

import (
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/views/filterbar"
)

// Writing the listed messages' packets (w) asks for a file name, offering
// Config.ExportPath, and never replaces a file without a yes (issue 30:
// it wrote into the working folder without asking and overwrote silently).

// writeTargetMsg says whether the file asked for exists (a stat, done in a
// command like every other IO of the views).
type writeTargetMsg struct {
	path   string
	exists bool
}

func statCmd(path string) tea.Cmd {
	return func() tea.Msg {
		_, err := os.Lstat(path)
		return writeTargetMsg{path: path, exists: err == nil}
	}
}

// writeStep carries a write from the name asked to the export: the name
// (filterbar.WriteMsg), whether it exists (writeTargetMsg), the answer to
// "overwrite?" (filterbar.ConfirmMsg).
func (m *Model) writeStep(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case filterbar.FindMsg:
		m.cols.find = msg.Text
		return m.find(1)
	case filterbar.WriteMsg:
		return statCmd(msg.Path)
	case writeTargetMsg:
		if msg.exists {
			m.pendingWrite = msg.path
			m.bar.OpenConfirm(fmt.Sprintf("the file exists: replace it? (y/n) %s", msg.path))
			return nil
		}
		return m.export(msg.path)
	case filterbar.ConfirmMsg:
		path := m.pendingWrite
		m.pendingWrite = ""
		if !msg.Yes || path == "" {
			m.note = "not written: " + termsafe.Escape(path) + " kept as it was"
			return nil
		}
		return m.export(path)
	}
	return nil
}

// export writes the listed messages' packets to path (the I/O graph's
// CSV when the graph is open: graphview.go).
func (m *Model) export(path string) tea.Cmd {
	if m.over == GraphOverlay {
		return m.writeGraph(path)
	}
	if m.msgs.Scanning() {
		m.note = "the filter is still running; write again when it is done"
		return nil
	}
	m.note = "writing " + termsafe.Escape(path) + "…"
	return exportCmd(m.cfg.Export, path, m.listed())
}
