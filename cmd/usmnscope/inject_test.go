package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/scenario"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestInjectLive sends 20,000 load messages with simulate --inject on lo
// while live -i lo --stats reads them, and checks that live saw every
// frame the generator made and decoded every message in them. The
// generator is deterministic, so the frames are counted beforehand; live
// runs for a fixed 6 s (the injection takes a fraction of a second), and a
// port of its own keeps colleagues' loopback traffic out of its kernel
// filter.
func TestInjectLive(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("simulate --inject and live need Linux and CAP_NET_RAW: run as root")
	}
	// Ports of its own, the query port too (the kernel filter passes it):
	// other checkouts run this test on the same loopback at the same time.
	port, query := freePort(t), freePort(t)
	prof := filepath.Join(t.TempDir(), "p.toml")
	if err := os.WriteFile(prof, []byte(fmt.Sprintf("transport_port = %d\nquery_port = %d\n", port, query)), 0o644); err != nil {
		t.Fatal(err)
	}
	p := unturned.Default()
	p.TransportPort, p.QueryPort = uint16(port), uint16(query)
	want, err := scenario.Scale{Messages: 20000, Conns: 4, Seed: 1, P: p}.Generate(io.Discard, scenario.PCAP)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		code      int
		out, errs string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := runArgs("--profile", prof, "live", "-i", "lo", "--duration", "6s")
		done <- result{code, out, errs}
	}()
	time.Sleep(time.Second) // the ring is open and the filter attached
	code, out, errs := runArgs("--profile", prof, "simulate", "--inject", "--count", "20000", "--conns", "4", "-i", "lo")
	if code != 0 {
		t.Fatalf("simulate --inject exit %d: %s", code, errs)
	}
	if w := fmt.Sprintf("injected %d packets, %d messages in ", want.Packets, want.Messages); !strings.Contains(out, w) {
		t.Errorf("simulate --inject printed %q; want %q", out, w)
	}
	r := <-done
	if r.code != 0 {
		t.Fatalf("live exit %d: %s", r.code, r.errs)
	}
	m := regexp.MustCompile(`live lo: (\d+) packets, (\d+) messages in .*; kernel \d+ packets, (\d+) drops`).FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("live printed %q; want its totals line", r.out)
	}
	// The kernel filter also passes every later IPv4 fragment, of any
	// port (they carry none to judge: SECURITY.md), so fragments other
	// tests send on lo at the same time may add packets; every frame the
	// generator made must be there, and every message decoded.
	if pk, _ := strconv.Atoi(m[1]); pk < want.Packets || m[2] != strconv.Itoa(want.Messages) || m[3] != "0" {
		t.Errorf("live read %s packets, %s messages, %s drops; want at least %d packets, %d messages, 0 drops", m[1], m[2], m[3], want.Packets, want.Messages)
	}
}

// TestInjectErrors checks the flags that belong to TCP mode only.
func TestInjectErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--inject", "--count", "5", "--addr", "127.0.0.1:1"}, "--addr is for TCP connections"},
		{[]string{"simulate", "--inject", "--count", "5", "--full-speed"}, "--full-speed is for TCP connections"},
		{[]string{"simulate", "--count", "5", "-i", "lo"}, "-i goes with --inject"},
		{[]string{"simulate", "--inject"}, "give --scenario F, --count N or both"},
	}
	for _, tt := range tests {
		code, _, stderr := runArgs(tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v = exit %d, %q; want exit 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}
