package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/views"
)

// shellWords splits a command line as a shell would for the words the
// graph's note writes: spaces, and single quotes ('\” for a quote).
func shellWords(s string) []string {
	var out []string
	var w strings.Builder
	in, any := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			in, any = !in, true
		case c == '\\' && !in && i+1 < len(s):
			i++
			w.WriteByte(s[i])
		case c == ' ' && !in:
			if any || w.Len() > 0 {
				out = append(out, w.String())
			}
			w.Reset()
			any = false
		default:
			w.WriteByte(c)
		}
	}
	if any || w.Len() > 0 {
		out = append(out, w.String())
	}
	return out
}

// TestGraphCSVAgreesWithStats (issue 26): the CSV the TUI's I/O graph
// writes (i, a series with a filter, a field series, w) holds the same
// bytes as the `usmnscope stats … --csv` command its note names, run on
// the capture: the two paths read the messages apart (the TUI's index,
// the CLI's stream) and meet only in the CSV writer.
func TestGraphCSVAgreesWithStats(t *testing.T) {
	for _, fx := range []string{"pings", "usmn-basic"} {
		t.Run(fx, func(t *testing.T) {
			dir := t.TempDir()
			dc := loadFixture(t, fx)
			cfg := views.Config{Name: fx + ".pcapng", Parse: parseFilter, ExportPath: filepath.Join(dir, fx+"-filtered.pcapng")}
			keys := []string{"i", "a"}
			keys = append(keys, strings.Split("max(latency) dir==s2c", "")...)
			keys = append(keys, "enter", "a")
			keys = append(keys, strings.Split("len msg==InvokeMessageListener || msg~Ping", "")...)
			keys = append(keys, "enter", "w", "enter")
			csvPath := filepath.Join(dir, fx+"-filtered-iograph.csv")
			m := runUntil(t, views.New(dc, cfg), 120, 40, keys, func() bool {
				_, err := os.Stat(csvPath)
				return err == nil
			})
			got, err := os.ReadFile(csvPath)
			if err != nil {
				t.Fatalf("the graph wrote nothing: %v (note %q)", err, m.Note())
			}
			note := m.Note()
			i, j := strings.Index(note, "as usmnscope stats "), strings.LastIndex(note, ")")
			if i < 0 || j < i {
				t.Fatalf("note %q names no stats command", note)
			}
			args := shellWords(note[i+len("as usmnscope stats ") : j])
			if !strings.Contains(note, "--series 'len msg==InvokeMessageListener || msg~Ping'") {
				t.Errorf("note %q lacks the filtered series", note)
			}
			out, err := runStatsEach(t, nil, append(args, filepath.Join(capturesDir, fx+".pcapng"))...)
			if err != nil {
				t.Fatal(err)
			}
			if out != string(got) {
				t.Errorf("stats %q printed\n%s\nthe graph wrote\n%s", args, out, got)
			}
			if strings.Count(out, "\n") < 3 || !strings.HasPrefix(out, "t,messages,bytes,max(latency) dir==s2c,len msg==InvokeMessageListener || msg~Ping\n") {
				t.Errorf("CSV\n%s\nwant a header naming the 4 series and rows", out)
			}
		})
	}
}
