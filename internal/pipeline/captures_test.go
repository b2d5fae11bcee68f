package pipeline

import (
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/session"
)

// TestOrigin: a capture's host is --host FILE=NAME for it, else the last
// bare --host, else its base name without extension; stdin is "stdin".
func TestOrigin(t *testing.T) {
	for _, tc := range []struct {
		path  string
		hosts []string
		want  session.Origin
	}{
		{"dir/eu1.pcapng", nil, session.Origin{Host: "eu1", Capture: "eu1.pcapng"}},
		{"dir/eu1.pcapng", []string{"game"}, session.Origin{Host: "game", Capture: "eu1.pcapng"}},
		{"dir/eu1.pcapng", []string{"us1.pcapng=us", "eu1.pcapng=eu"}, session.Origin{Host: "eu", Capture: "eu1.pcapng"}},
		{"dir/eu1.pcapng", []string{"dir/eu1.pcapng=eu", "other"}, session.Origin{Host: "eu", Capture: "eu1.pcapng"}},
		{"-", nil, session.Origin{Host: "stdin", Capture: "stdin"}},
	} {
		if got := Origin(tc.path, tc.hosts); got != tc.want {
			t.Errorf("Origin(%q, %q) = %+v; want %+v", tc.path, tc.hosts, got, tc.want)
		}
	}
}

// TestCaptures: one capture is no Several; several get their hosts and
// shifts; what names no capture given, or stdin among several, is refused
// in words.
func TestCaptures(t *testing.T) {
	if caps, err := Captures([]string{"a.pcapng"}, []string{"eu"}, nil); caps != nil || err != nil {
		t.Errorf("one capture: %v, %v; want nil, nil", caps, err)
	}
	caps, err := Captures([]string{"x/a.pcapng", "b.pcapng"}, []string{"a.pcapng=eu"}, []string{"b.pcapng=-1.5s"})
	want := []Capture{{Path: "x/a.pcapng", Host: "eu", Capture: "a.pcapng"}, {Path: "b.pcapng", Host: "b", Capture: "b.pcapng", Shift: -1500 * time.Millisecond, HasShift: true}}
	if err != nil || len(caps) != 2 || caps[0] != want[0] || caps[1] != want[1] {
		t.Errorf("two captures: %+v, %v; want %+v", caps, err, want)
	}
	for _, tc := range []struct {
		paths, hosts, shifts []string
		want                 string
	}{
		{[]string{"a", "b"}, []string{"c=x"}, nil, "--host c=x: c is not a capture given"},
		{[]string{"a", "b"}, nil, []string{"c=1s"}, "--time-shift c=1s: c is not a capture given"},
		{[]string{"a", "-"}, nil, nil, errStdinSeveral.Error()},
	} {
		if _, err := Captures(tc.paths, tc.hosts, tc.shifts); err == nil || err.Error() != tc.want {
			t.Errorf("Captures(%q, %q, %q) = %v; want %q", tc.paths, tc.hosts, tc.shifts, err, tc.want)
		}
	}
}

// TestLoadProfile: no file is the default profile with capture's bounds;
// a file that is not there is an error naming it.
func TestLoadProfile(t *testing.T) {
	p, err := LoadProfile("")
	if err != nil || p.Name != "default" || p.Bounds != CaptureBounds(p.Bounds) {
		t.Errorf("LoadProfile(\"\") = %+v, %v; want the default with capture's bounds", p, err)
	}
	if _, err := LoadProfile("no/such.toml"); err == nil || !strings.Contains(err.Error(), "no/such.toml") {
		t.Errorf("LoadProfile(no/such.toml) = %v; want an error naming the file", err)
	}
}
