package filterbar

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/usmnscope/usmnscope/session"
)

// parse accepts "a" and "a b"; "x" is wrong at its own offset.
func parse(expr string) (func(*session.Message) bool, int, error) {
	if i := strings.Index(expr, "x"); i >= 0 {
		return nil, i, errors.New("unexpected x")
	}
	return func(*session.Message) bool { return true }, 0, nil
}

func typeText(m Model, s string) Model {
	for _, r := range s {
		m, _ = m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return m
}

func TestLiveValidation(t *testing.T) {
	m := New(parse)
	m.SetWidth(60)
	m.Open(Filter)
	m = typeText(m, "a b")
	if err, _ := m.Err(); err != nil {
		t.Fatalf(`"a b": %v`, err)
	}
	m = typeText(m, " x")
	err, pos := m.Err()
	if err == nil || pos != 4 {
		t.Fatalf(`"a b x": err %v at %d; want an error at 4`, err, pos)
	}
	if v := ansi.Strip(m.View("")); !strings.Contains(v, "unexpected x at 5") {
		t.Errorf("view = %q; want the error and its position", v)
	}
	// Enter on an error keeps the bar open.
	m, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if cmd != nil || m.Mode() != Filter {
		t.Errorf("enter on an error: mode %v cmd %v; want still open", m.Mode(), cmd != nil)
	}
	m, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	m, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	if err, _ := m.Err(); err != nil {
		t.Errorf("after deleting x: %v", err)
	}
	m, cmd = m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	f, ok := cmd().(FilterMsg)
	if !ok || f.Expr != "a b" || f.Match == nil || m.Applied() != "a b" || m.Mode() != Off {
		t.Errorf("accept: %+v applied %q mode %v", f, m.Applied(), m.Mode())
	}
}

func TestGoto(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // 0: refused
	}{{"42", 42}, {"0", 0}, {"4x", 0}, {"", 0}} {
		m := New(parse)
		m.Open(Goto)
		m = typeText(m, tc.in)
		_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
		got := 0
		if cmd != nil {
			if g, ok := cmd().(GotoMsg); ok {
				got = g.N
			}
		}
		if got != tc.want {
			t.Errorf(":%s = %d; want %d", tc.in, got, tc.want)
		}
	}
}

func TestEscapeAndCancel(t *testing.T) {
	m := New(parse)
	m.SetWidth(40)
	m.Open(Filter)
	m = typeText(m, "a\x1b[2J")
	if v := m.View(""); strings.Contains(v, "\x1b[2J") {
		t.Errorf("raw escape in view: %q", v)
	}
	m, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if m.Mode() != Off || m.Applied() != "" {
		t.Errorf("esc: mode %v applied %q", m.Mode(), m.Applied())
	}
}
