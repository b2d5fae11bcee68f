package buildinfo

import (
	"strings"
	"testing"
)

// TestVersion: a release set at link time is the text; without one a test
// binary says devel and the Go version.
func TestVersion(t *testing.T) {
	if got := Version("v1.2.3"); got != "v1.2.3" {
		t.Errorf("Version(v1.2.3) = %q", got)
	}
	if got := Version(""); !strings.HasPrefix(got, "devel") || !strings.Contains(got, ", go") {
		t.Errorf("Version(\"\") = %q; want devel and the Go version", got)
	}
}
