//go:build linux

package capture

import (
	"strings"
	"testing"
)

// TestOpenLiveNoSuchInterface: an interface that is not there is refused
// with the names of those that are (issue 30: Go's "route ip+net: no such
// network interface" named none), before any socket is opened.
func TestOpenLiveNoSuchInterface(t *testing.T) {
	_, err := OpenLive(LiveOptions{Interface: "nosuch0"})
	if err == nil {
		t.Fatal(`OpenLive("nosuch0") = nil error; want one`)
	}
	msg := err.Error()
	for _, want := range []string{`no interface "nosuch0"`, "the interfaces here are ", "lo", "any (all of them)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("OpenLive(nosuch0) error %q; want it to contain %q", msg, want)
		}
	}
	if strings.Contains(msg, "route ip+net") {
		t.Errorf("OpenLive(nosuch0) error %q; want no Go internals", msg)
	}
}
