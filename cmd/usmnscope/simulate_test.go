package main

import (
	"strings"
	"testing"
)

// TestSimulate plays a short scenario over loopback; the simulator checks
// that the server received every byte the client sent and the other way
// round, and says so per connection.
func TestSimulate(t *testing.T) {
	code, stdout, stderr := runArgs("simulate", "--scenario", "../../fixtures/scenarios/two-conns.toml", "--addr", "127.0.0.1:0", "--full-speed", "--count", "200")
	if code != 0 {
		t.Fatalf("simulate exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"connection 1: 9 messages, c2s 1032 bytes, s2c 147 bytes, all received",
		"connection 2: 9 messages, c2s 1037 bytes, s2c 147 bytes, all received",
		"load: 20", "done: 3 connections",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("simulate output:\n%s\nwant %q", stdout, want)
		}
	}
}

func TestSimulateErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"simulate"}, 2, "give --scenario F, --count N or both"},
		{[]string{"simulate", "--count", "5", "--speed", "0"}, 2, "--speed must be above 0"},
		{[]string{"simulate", "--count", "5", "--speed", "2", "--full-speed"}, 2, "exclude each other"},
		{[]string{"simulate", "--scenario", "/nonexistent.toml"}, 1, "no such file"},
		{[]string{"simulate", "--count", "5", "--addr", "256.1.1.1:1"}, 1, "simulate"},
	}
	for _, tt := range tests {
		code, _, stderr := runArgs(tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v = exit %d, %q; want exit %d and %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
}
