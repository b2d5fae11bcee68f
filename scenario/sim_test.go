package scenario

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSim plays usmn-basic over loopback sockets, then some load, and
// checks that each side received exactly the bytes the script wrote.
func TestSim(t *testing.T) {
	s := readFixture(t, "usmn-basic")
	scripts, err := s.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	var want [2]int64
	for _, w := range scripts[0].Writes {
		want[w.Dir] += int64(len(w.Data))
	}
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sim := &Sim{Addr: "127.0.0.1:0", Speed: 20, Count: 3000, Conns: 3, Log: &log}
	res, err := sim.Run(ctx, s)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	if res.Conns != 4 || res.Messages < 22+3000 {
		t.Errorf("Run = %+v; want 1 + 3 connections, 22 + 3000 messages", res)
	}
	if !strings.Contains(log.String(), "over 3 connections") {
		t.Errorf("log:\n%s\nwant the load over 3 connections", log.String())
	}
	if !strings.Contains(log.String(), "connection 1: 22 messages, c2s "+itoa(want[0])+" bytes, s2c "+itoa(want[1])+" bytes, all received") {
		t.Errorf("log:\n%s\nwant connection 1 with %v bytes", log.String(), want)
	}
	if res.Bytes[0] <= want[0] || res.Bytes[1] <= want[1] {
		t.Errorf("bytes %v; want more than the scenario's %v after the load", res.Bytes, want)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestSimCancel: a cancelled context stops a slow simulation promptly.
func TestSimCancel(t *testing.T) {
	s := readFixture(t, "vanilla")
	s.Conns[0].Transport.Gap.Duration = time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := (&Sim{Addr: "127.0.0.1:0"}).Run(ctx, s)
	if err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("Run with a cancelled context = %v after %v; want an error soon", err, time.Since(start))
	}
}

func TestSimListenError(t *testing.T) {
	if _, err := (&Sim{Addr: "256.0.0.1:1"}).Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "simulate") {
		t.Errorf("Run on a bad address = %v; want a simulate: error", err)
	}
}

// BenchmarkSimFullSpeed plays the load mix over loopback as fast as it
// goes, one message per write with TCP_NODELAY; one op is one message.
func BenchmarkSimFullSpeed(b *testing.B) {
	b.ReportAllocs()
	before, ok := loPackets()
	start := time.Now()
	res, err := (&Sim{Addr: "127.0.0.1:0", FullSpeed: true, Count: b.N, Conns: 4}).Run(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	el := time.Since(start).Seconds()
	b.ReportMetric(float64(res.Messages)/el, "msgs/s")
	if after, ok2 := loPackets(); ok && ok2 {
		// Everything on lo, ACKs included and whatever else runs: an
		// upper bound on what the simulation alone sent.
		b.ReportMetric(float64(after-before)/el, "lo-packets/s")
	}
}

// loPackets reads the loopback interface's transmitted packet count from
// /proc/net/dev (Linux only).
func loPackets() (uint64, bool) {
	b, err := os.ReadFile("/proc/net/dev")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || name != "lo" {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 10 {
			return 0, false
		}
		n, err := strconv.ParseUint(f[9], 10, 64)
		return n, err == nil
	}
	return 0, false
}
