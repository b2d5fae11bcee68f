package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
)

func TestOpenNotATerminal(t *testing.T) {
	code, out, errw := run(t, nil, "open", filepath.Join(capturesDir, "usmn-basic.pcapng"))
	if code != exitInput || out != "" || !strings.Contains(errw, "standard output is not a terminal") {
		t.Errorf("open with a buffer for stdout: exit %d, stdout %q, stderr %q; want exit 1 and a clear message", code, out, errw)
	}
}

func TestOpenAndLiveUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"open"}, exitUsage, "missing CAPTURE"},
		// Several captures are read as one (docs/cli.md): the first that
		// cannot be opened is named.
		{[]string{"open", "a", "b"}, exitInput, "open a:"},
		{[]string{"open", "/nonexistent.pcapng"}, exitInput, "nonexistent.pcapng"},
		{[]string{"live"}, exitUsage, "-i IFACE is required"},
		{[]string{"live", "-i", "lo", "--snaplen", "-1"}, exitUsage, "--snaplen -1"},
		{[]string{"live", "-i", "lo", "extra"}, exitUsage, "unknown command"},
		{[]string{"live", "-i", "lo"}, exitInput, "standard output is not a terminal"},
	} {
		code, _, errw := run(t, nil, tc.args...)
		if code != tc.code || !strings.Contains(errw, tc.msg) {
			t.Errorf("usmnscope %v: exit %d, stderr %q; want exit %d with %q", tc.args, code, errw, tc.code, tc.msg)
		}
	}
}

func TestParseFilterAdapter(t *testing.T) {
	match, _, err := parseFilter("c2s")
	if err != nil {
		t.Fatal(err)
	}
	if !match(&session.Message{Dir: dissect.C2S}) || match(&session.Message{Dir: dissect.S2C}) {
		t.Error("c2s filter does not select by direction")
	}
	if match, _, err := parseFilter("   "); err != nil || !match(&session.Message{}) {
		t.Errorf("empty filter: %v; want one that matches all", err)
	}
	_, pos, err := parseFilter("msg==PingRequest && lisener~x")
	if err == nil || pos != 20 || strings.Contains(err.Error(), "\n") {
		t.Errorf("bad field: pos %d err %v; want a one-line error at byte 20", pos, err)
	}
	// Issue 16: a message name that does not exist is an error at the name.
	if _, pos, err := parseFilter("msg==Ping"); err == nil || pos != 5 {
		t.Errorf("msg==Ping: pos %d err %v; want an error at byte 5", pos, err)
	}
}
