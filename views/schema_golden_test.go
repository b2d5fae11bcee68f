package views_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views"
)

// schemaIndex decodes the schema fixture with the fixtures' schemas.
func schemaIndex(t *testing.T) *session.Index {
	t.Helper()
	paths, err := filepath.Glob("../fixtures/schemas/*.toml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("fixture schemas: %v", err)
	}
	var files []*schema.File
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := schema.Parse(filepath.Base(p), b)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	set, err := schema.NewSet(files...)
	if err != nil {
		t.Fatal(err)
	}
	d, err := pipeline.Open(pipeline.Options{Config: pipeline.Config{Schemas: set}, Path: "../fixtures/captures/usmn-schemas.pcapng", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Source.Close()
	if err := d.Feed(nil); err != nil {
		t.Fatal(err)
	}
	return d.Index
}

// TestGoldenSchemas: the TUI over the schema fixture (issue 14): the row
// summaries name the payload's message, the field tree has the payload
// fields under a payload node, the bits pane highlights a payload field,
// and the hostile payload string is escaped. 80×24 and 160×48.
func TestGoldenSchemas(t *testing.T) {
	ix := schemaIndex(t)
	for _, sc := range []struct {
		name string
		keys []string
	}{
		// Message 8: the hostile Say; message 15: Contents (a list of structs).
		{"schema-say", []string{":", "8", "enter"}},
		{"schema-contents", []string{":", "15", "enter", "tab", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j"}},
	} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			name := sc.name + "-" + map[int]string{80: "80x24", 160: "160x48"}[sz[0]]
			t.Run(name, func(t *testing.T) {
				m := views.New(ix, views.Config{Name: "usmn-schemas", Parse: func(string) (func(*session.Message) bool, int, error) { return nil, 0, nil }})
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
				for _, bad := range []string{"\x07", "\x1b]", "\u202e", "\u009b", "\x1b[31m", "\x1b[2J"} {
					if strings.Contains(raw, bad) {
						t.Errorf("screen holds raw %q", bad)
					}
				}
				golden(t, name, ansi.Strip(raw))
			})
		}
	}
}
