package scenario

import (
	"bytes"
	"context"
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
	sim := &Sim{Addr: "127.0.0.1:0", Speed: 20, Count: 3000, Log: &log}
	res, err := sim.Run(ctx, s)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	if res.Conns != 2 || res.Messages < 22+3000 {
		t.Errorf("Run = %+v; want 2 connections, 22 + 3000 messages", res)
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
	start := time.Now()
	res, err := (&Sim{Addr: "127.0.0.1:0", FullSpeed: true, Count: b.N}).Run(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Messages)/time.Since(start).Seconds(), "msgs/s")
}
