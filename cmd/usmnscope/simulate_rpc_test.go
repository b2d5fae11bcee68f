package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateRPC plays a ULinkRPC fixture per transport over loopback:
// the simulator checks that each side received exactly the other's
// frames, says so per connection and ends with the done line.
func TestSimulateRPC(t *testing.T) {
	tests := []struct {
		name, want string
	}{
		{"tcp-json", "connection 1: 26 frames over tcp, c2s "},
		{"websocket-json", "connection 1: 7 frames over websocket, c2s "},
		{"kcp-memorypack", "connection 1: 5 frames over kcp, c2s "},
	}
	for _, tt := range tests {
		code, stdout, stderr := runArgs("simulate", "--scenario", filepath.Join(rpcFixturesDir, tt.name+".toml"), "--addr", "127.0.0.1:0", "--full-speed")
		if code != 0 {
			t.Fatalf("simulate %s: exit %d: %s", tt.name, code, stderr)
		}
		for _, want := range []string{"simulating ulinkrpc over ", tt.want, "all received", "done: 1 connections, "} {
			if !strings.Contains(stdout, want) {
				t.Errorf("simulate %s output:\n%s\nwant %q", tt.name, stdout, want)
			}
		}
	}
}

// TestSimulateRPCUsage: the flags that do not apply to a ULinkRPC
// scenario are refused, not ignored.
func TestSimulateRPCUsage(t *testing.T) {
	tcp := filepath.Join(rpcFixturesDir, "tcp-json.toml")
	kcp := filepath.Join(rpcFixturesDir, "kcp-json.toml")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--scenario", tcp, "--count", "5"}, "--count is for the Unturned load mix"},
		{[]string{"--scenario", tcp, "--conns", "2"}, "--conns is for the Unturned load mix"},
		{[]string{"--scenario", tcp, "--inject"}, "--inject replays Unturned scenarios"},
		{[]string{"--scenario", tcp, "-i", "lo"}, "-i goes with --inject"},
		{[]string{"--scenario", kcp, "--nagle"}, "--nagle and --congestion are for TCP"},
		{[]string{"--scenario", kcp, "--speed", "2", "--full-speed"}, "exclude each other"},
	}
	for _, tt := range tests {
		code, _, stderr := runArgs(append([]string{"simulate"}, tt.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("simulate %v = exit %d, %q; want exit %d and %q", tt.args, code, stderr, exitUsage, tt.want)
		}
	}
	_, help, _ := runArgs("simulate", "--help")
	for _, want := range []string{"ULinkRPC scenario", "dump --decode-as\nPORT=ulinkrpc", "are for\nUnturned scenarios only and are refused"} {
		if !strings.Contains(help, want) {
			t.Errorf("simulate --help lacks %q:\n%s", want, help)
		}
	}
}
