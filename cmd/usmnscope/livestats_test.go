package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestLiveHeadlessUsage(t *testing.T) {
	for _, args := range [][]string{
		{"live", "-i", "lo", "--count", "-1"},
		{"live", "-i", "lo", "--duration", "-1s"},
	} {
		code, out, errw := run(t, nil, args...)
		if code != exitUsage || out != "" || !strings.Contains(errw, "--count and --duration cannot be negative") {
			t.Errorf("usmnscope %v: exit %d, stdout %q, stderr %q; want exit %d and the reason", args, code, out, errw, exitUsage)
		}
	}
}

// TestLiveHeadless runs live without a terminal for a short --duration:
// it must stop by itself and print the one totals line.
func TestLiveHeadless(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("live capture needs CAP_NET_RAW: skipping the headless live run (not root)")
	}
	start := time.Now()
	code, out, errw := run(t, nil, "live", "-i", "lo", "--duration", "300ms")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("live --duration 300ms took %v", took)
	}
	line := regexp.MustCompile(`^live lo: \d+ packets, \d+ messages in \d+\.\d{3} s: \d+ pkt/s, \d+ msg/s; kernel \d+ packets, \d+ drops; messages: \d+ unturned, \d+ ulinkrpc\n$`)
	if code != 0 || !line.MatchString(out) {
		t.Errorf("live -i lo --duration 300ms: exit %d, stdout %q, stderr %q; want exit 0 and one totals line", code, out, errw)
	}
}
