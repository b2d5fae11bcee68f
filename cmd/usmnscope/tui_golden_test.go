package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/views"
)

const tuiGoldenDir = "testdata/tui"

// loadFixture decodes a fixture capture through the same capture → decode
// wiring as `usmnscope open`.
func loadFixture(t *testing.T, name string) *session.Index {
	t.Helper()
	path := filepath.Join(capturesDir, name+".pcapng")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("fixture %s missing: %v", path, err)
	}
	p := unturned.Default()
	src, err := openSource(&streams{}, path, p)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dc := session.NewIndex(p)
	if err := pipeline.Feed(src, dc, nil); err != nil {
		t.Fatalf("feed %s: %v", name, err)
	}
	return dc
}

// keyPress builds the key message a terminal sends for k.
func keyPress(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// TestGoldenTUI runs the whole program over the fixture captures at 80×24
// and 160×48, presses keys, and compares the final screen, with colour
// stripped, to testdata/tui. -update rewrites them; a mismatch writes
// NAME.got to diff.
//
// It drives tea.Program the way teatest does (keys through Program.Send,
// a fixed window size, output discarded, the final model rendered) but
// without importing teatest: teatest's golden package registers its own
// -update flag, which collides with this package's (golden_test.go). The
// teatest goldens over synthetic sources are in package views.
func TestGoldenTUI(t *testing.T) {
	scenarios := []struct {
		name, fixture string
		keys          []string
	}{
		{"vanilla", "vanilla", nil},
		// USMN: message 10 (TellClientListenerId) and the tables as of it.
		{"usmn-basic", "usmn-basic", []string{":", "1", "0", "enter", "t"}},
		// Hostile: message 4 has an OSC title sequence in its type name.
		{"hostile", "hostile", []string{":", "4", "enter", "tab", "j", "j", "j", "j", "j", "j", "j"}},
	}
	for _, sc := range scenarios {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			name := sc.name + "-" + itoaSize(sz)
			t.Run(name, func(t *testing.T) {
				dc := loadFixture(t, sc.fixture)
				m := views.New(dc, views.Config{Name: sc.fixture + ".pcapng", Parse: parseFilter})
				final := runProgram(t, m, sz[0], sz[1], sc.keys)
				raw := final.View().Content
				screen := ansi.Strip(raw)
				for _, bad := range []string{"\x07", "\x1b]", "\u202e", "\u009b"} {
					if strings.Contains(raw, bad) {
						t.Errorf("screen holds raw %q", bad)
					}
				}
				if lines := strings.Split(screen, "\n"); len(lines) != sz[1] {
					t.Errorf("%d lines; want %d", len(lines), sz[1])
				}
				tuiGolden(t, name, screen)
			})
		}
	}
}

// runProgram runs m as a program at w×h, sends the end of loading and the
// keys, quits and returns the final model.
func runProgram(t *testing.T, m views.Model, w, h int, keys []string) views.Model {
	t.Helper()
	p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(w, h), tea.WithoutSignals())
	type result struct {
		m   tea.Model
		err error
	}
	done := make(chan result, 1)
	go func() {
		fm, err := p.Run()
		done <- result{fm, err}
	}()
	p.Send(tea.WindowSizeMsg{Width: w, Height: h})
	p.Send(views.ProgressMsg{Fraction: 1, Done: true})
	for _, k := range keys {
		p.Send(keyPress(k))
	}
	p.Quit()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.m.(views.Model)
	case <-time.After(10 * time.Second):
		p.Kill()
		t.Fatal("program did not quit")
	}
	return m
}

func itoaSize(sz [2]int) string {
	return strings.Join([]string{itoa(sz[0]), itoa(sz[1])}, "x")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func tuiGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(tuiGoldenDir, name+".golden")
	if *update {
		if err := os.MkdirAll(tuiGoldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(path + ".got")
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test ./cmd/usmnscope -run GoldenTUI -update` to create it)", err)
	}
	if got != string(want) {
		_ = os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("%s differs from the golden file; diff %s.got %s", name, path, path)
		return
	}
	os.Remove(path + ".got")
}
