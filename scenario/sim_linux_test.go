//go:build linux

package scenario

import (
	"context"
	"os"
	"strings"
	"testing"
)

func TestSimCongestion(t *testing.T) {
	_, err := (&Sim{Addr: "127.0.0.1:0", FullSpeed: true, Count: 10, Congestion: "no-such-cc"}).Run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), `congestion control "no-such-cc"`) {
		t.Errorf("Sim{Congestion: no-such-cc}.Run() error = %v; want one naming the algorithm", err)
	}
	avail, err := os.ReadFile("/proc/sys/net/ipv4/tcp_available_congestion_control")
	if err != nil || !strings.Contains(" "+strings.TrimSpace(string(avail))+" ", " cubic ") {
		t.Skipf("cubic not available here (%q, %v): skipping the cubic run", avail, err)
	}
	res, err := (&Sim{Addr: "127.0.0.1:0", FullSpeed: true, Count: 1000, Conns: 2, Congestion: "cubic"}).Run(context.Background(), nil)
	if err != nil || res.Messages < 1000 {
		t.Errorf("Sim{Congestion: cubic}.Run() = %d messages, %v; want at least 1000 played and received", res.Messages, err)
	}
}
