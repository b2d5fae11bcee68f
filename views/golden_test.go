package views_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
	"github.com/usmnscope/usmnscope/views"
)

// updating reports -update. teatest's golden package registers that flag
// already, so this package reads it rather than defining its own.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(path + ".got")
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./views -run Golden -update creates it)", err)
	}
	if got != string(want) {
		_ = os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("%s differs; diff %s.got %s", name, path, path)
		return
	}
	os.Remove(path + ".got")
}

func keyPress(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "ctrl+t", "ctrl+f", "ctrl+n", "ctrl+b":
		return tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	}
	return tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
}

// TestGoldenSynthetic runs the program under teatest over the synthetic
// capture (a vanilla and a USMN connection, a hostile listener name) at
// 80×24 and 160×48 and compares the final screen, colour stripped.
func TestGoldenSynthetic(t *testing.T) {
	for _, sc := range []struct {
		name string
		keys []string
	}{
		{"start", nil},
		// Message 4 (hostile type name), its tables, then the listener filter.
		{"tables", []string{":", "4", "enter", "t", "j", "j"}},
		{"listener", []string{":", "4", "enter", "t", "j", "j", "enter"}},
		// The bits of message 2 with the cursor moved into the type name.
		{"bits", []string{"j", "tab", "tab", "w", "w", "w", "w"}},
		{"help", []string{"?"}},
		// Issue 16's panes: expert info, a followed connection, the I/O
		// graph of all messages, the full text of a field.
		{"expert", []string{"e"}},
		{"follow", []string{":", "4", "enter", "F"}},
		{"graph", []string{"i"}},
		// Issue 26: a third series, the longest message per interval.
		{"graph-series", append([]string{"i", "a"}, append(strings.Split("max(len) msg==PingRequest", ""), "enter")...)},
		{"text", []string{":", "4", "enter", "tab", "j", "j", "j", "j", "j", "v"}},
		// Issue 30: the time formats (T cycles: UTC, local, delta, delta
		// on the connection; local time is left out, it depends on the
		// zone), a time reference (ctrl+t on message 3), marks on
		// messages 2 and 4, then the marked ones only (M), and ] from the
		// top to the second mark.
		{"time-utc", []string{"T"}},
		{"time-delta", []string{"T", "T", "T"}},
		{"time-deltaconn", []string{"T", "T", "T", "T"}},
		{"timeref", []string{":", "3", "enter", "ctrl+t"}},
		{"marks", []string{"j", "m", "j", "j", "m", "M"}},
		{"marks-next", []string{"j", "m", "j", "j", "m", "g", "]", "]"}},
	} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			name := sc.name + "-" + map[int]string{80: "80x24", 160: "160x48"}[sz[0]]
			t.Run(name, func(t *testing.T) {
				m := views.New(fake.Capture(), views.Config{Name: "synthetic", Parse: func(string) (func(*session.Message) bool, int, error) { return nil, 0, nil }})
				tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(sz[0], sz[1]))
				tm.Send(views.ProgressMsg{Fraction: 1, Done: true})
				for _, k := range sc.keys {
					tm.Send(keyPress(k))
				}
				if err := tm.Quit(); err != nil {
					t.Fatal(err)
				}
				fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(views.Model)
				raw := fm.View().Content
				for _, bad := range []string{"\x07", "\x1b]", "\u202e", "\x1b[2J"} {
					if strings.Contains(raw, bad) {
						t.Errorf("screen holds raw %q", bad)
					}
				}
				golden(t, name, ansi.Strip(raw))
			})
		}
	}
}
