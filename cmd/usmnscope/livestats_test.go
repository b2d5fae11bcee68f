package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/capture"
)

func TestStatsLine(t *testing.T) {
	for _, tc := range []struct {
		iface  string
		st     capture.Stats
		msgs   int
		active time.Duration
		want   string
	}{
		{"lo", capture.Stats{Packets: 1000, KernelPackets: 1003, KernelDrops: 3}, 500, 2 * time.Second,
			"live lo: 1000 packets, 500 messages in 2.000 s: 500 pkt/s, 250 msg/s; kernel 1003 packets, 3 drops"},
		// One packet or none: no time between first and last, no rate.
		{"any", capture.Stats{Packets: 1, KernelPackets: 1}, 0, 0,
			"live any: 1 packets, 0 messages in 0.000 s: 0 pkt/s, 0 msg/s; kernel 1 packets, 0 drops"},
		// The interface name is the user's: printed terminal-safe.
		{"e\x1b[2Jth0", capture.Stats{}, 0, 0,
			"live e\\x1b[2Jth0: 0 packets, 0 messages in 0.000 s: 0 pkt/s, 0 msg/s; kernel 0 packets, 0 drops"},
	} {
		if got := statsLine(tc.iface, tc.st, tc.msgs, tc.active); got != tc.want {
			t.Errorf("statsLine(%q, %+v, %d, %v) = %q; want %q", tc.iface, tc.st, tc.msgs, tc.active, got, tc.want)
		}
	}
}

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
	line := regexp.MustCompile(`^live lo: \d+ packets, \d+ messages in \d+\.\d{3} s: \d+ pkt/s, \d+ msg/s; kernel \d+ packets, \d+ drops\n$`)
	if code != 0 || !line.MatchString(out) {
		t.Errorf("live -i lo --duration 300ms: exit %d, stdout %q, stderr %q; want exit 0 and one totals line", code, out, errw)
	}
}
