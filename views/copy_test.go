package views

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCopyFails: a copy program that cannot run, or fails, is the note,
// with what it said on standard error.
func TestCopyFails(t *testing.T) {
	for _, tt := range []struct {
		argv []string
		want string
	}{
		{[]string{filepath.Join(t.TempDir(), "nosuch")}, "copy: "},
		{[]string{"sh", "-c", "echo no display >&2; exit 3"}, "copy: sh: exit status 3: no display"},
		{[]string{"sh", "-c", "cat >/dev/null"}, "copied message 1 with sh"},
	} {
		msg := runCopy(tt.argv, "message 1", "abcd")().(copiedMsg)
		if got := msg.note(); !strings.HasPrefix(got, tt.want) || strings.HasSuffix(tt.argv[0], "nosuch") && !strings.Contains(got, "no such file") {
			t.Errorf("%v: note %q; want %q", tt.argv, got, tt.want)
		}
	}
}
