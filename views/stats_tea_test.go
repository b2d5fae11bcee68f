package views_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
	"github.com/usmnscope/usmnscope/views"
)

// realFilter is the CLI's filter language as the TUI's Config.Parse.
func realFilter(expr string) (func(*session.Message) bool, int, error) {
	f, err := filter.Parse(expr)
	if err != nil || f == nil {
		return nil, 0, err
	}
	return f.Match, 0, nil
}

// TestTeaStatsPane (issue 26): s opens the statistics pane over the
// synthetic capture; < sorts it (by messages); Enter on its first row
// filters the message list to that group, shows the filter in the bar
// and closes the pane.
func TestTeaStatsPane(t *testing.T) {
	tm := teatest.NewTestModel(t, views.New(fake.Capture(), views.Config{Name: "synthetic", Parse: realFilter}), teatest.WithInitialTermSize(120, 40))
	tm.Send(views.ProgressMsg{Fraction: 1, Done: true})
	tm.Send(keyPress("s"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("statistics by kind")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(keyPress("<"))
	// The renderer redraws only changed cells: the new sort column's name.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("MSGS")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	time.Sleep(200 * time.Millisecond)
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(tm.FinalOutput(t, teatest.WithFinalTimeout(5*time.Second)))
	_ = out
	m := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(views.Model)
	if m.Overlay() != views.NoOverlay {
		t.Errorf("after s < enter: overlay %v; want none", m.Overlay())
	}
	if !m.Messages().Filtered() {
		t.Errorf("after s < enter: the message list is not filtered")
	}
	if !strings.Contains(ansi.Strip(m.View().Content), "proto==") {
		t.Errorf("after s < enter: the filter bar does not show the group's filter:\n%s", ansi.Strip(m.View().Content))
	}
}
