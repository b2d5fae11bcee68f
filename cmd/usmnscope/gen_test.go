package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runArgs runs the command line with buffers and an empty stdin.
func runArgs(args ...string) (code int, out, errs string) {
	var o, e bytes.Buffer
	code = Execute(args, strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

func TestGen(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "basic.pcapng")
	code, stdout, stderr := runArgs("gen", "../../fixtures/scenarios/usmn-basic.toml", "-o", out)
	if code != 0 {
		t.Fatalf("gen exit %d: %s", code, stderr)
	}
	if want := "1 connections, 22 messages, 38 packets"; !strings.Contains(stdout, want) {
		t.Errorf("gen output %q; want it to contain %q", stdout, want)
	}
	got, _ := os.ReadFile(out)
	golden, err := os.ReadFile("../../fixtures/captures/usmn-basic.pcapng")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, golden) {
		t.Errorf("gen wrote %d bytes that differ from fixtures/captures/usmn-basic.pcapng (%d)", len(got), len(golden))
	}

	// --pcap, and the pcap magic for nanosecond timestamps (a1 b2 3c 4d).
	pcap := filepath.Join(dir, "v.cap")
	if code, _, stderr := runArgs("gen", "../../fixtures/scenarios/vanilla.toml", "--pcap", "-o", pcap); code != 0 {
		t.Fatalf("gen --pcap exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(pcap); len(b) < 4 || !bytes.Equal(b[:4], []byte{0x4d, 0x3c, 0xb2, 0xa1}) {
		t.Errorf("gen --pcap wrote %x…; want the nanosecond pcap magic", b[:min(4, len(b))])
	}

	// -o - writes the capture to stdout, the summary to stderr.
	code, stdout, stderr = runArgs("gen", "--scale", "500", "--conns", "3", "-o", "-")
	if code != 0 || !strings.HasPrefix(stdout, "\x0a\x0d\x0d\x0a") || !strings.Contains(stderr, "3 connections") {
		t.Errorf("gen --scale -o - = %d, %d bytes starting %q, stderr %q", code, len(stdout), stdout[:min(4, len(stdout))], stderr)
	}
}

func TestGenErrors(t *testing.T) {
	keep := filepath.Join(t.TempDir(), "keep.pcapng")
	os.WriteFile(keep, []byte("old"), 0o644)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"gen", "x.toml"}, 2, "-o OUT is required"},
		{[]string{"gen", "-o", "x.pcapng"}, 2, "either a scenario file or --scale"},
		{[]string{"gen", "a.toml", "--scale", "5", "-o", "x"}, 2, "either a scenario file or --scale"},
		{[]string{"gen", "/nonexistent/s.toml", "-o", "x"}, 1, "no such file"},
		{[]string{"gen", "--scale", "5", "--link", "pigeon", "-o", filepath.Join(t.TempDir(), "x.pcapng")}, 1, "link"},
		{[]string{"gen", "--bogus"}, 2, "unknown flag"},
		{[]string{"gen", "--scale", "5", "--conns", "70000", "-o", keep}, 1, "connections"},
		{[]string{"gen", "--scale", "5", "--protocol", "http", "-o", keep}, 2, "--protocol http"},
		{[]string{"gen", "--scale", "5", "--transport", "kcp", "-o", keep}, 2, "--transport is for"},
		{[]string{"gen", "--scale", "5", "--protocol", "ulinkrpc", "--transport", "quic", "-o", keep}, 1, "transport"},
	}
	for _, tt := range tests {
		code, _, stderr := runArgs(tt.args...)
		// One error line; a usage error may add the usage hint (internal/usage).
		first, hint, _ := strings.Cut(stderr, "\n")
		if code != tt.code || !strings.Contains(first, tt.want) || hint != "" && !strings.HasPrefix(hint, "Usage: ") {
			t.Errorf("%v = exit %d, %q; want exit %d and one line containing %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
	// A failed gen removes only a file it created, never one that was there.
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("failed gen removed the existing %s: %v", keep, err)
	}
}

func TestGenHelp(t *testing.T) {
	code, stdout, _ := runArgs("gen", "--help")
	if code != 0 || !strings.Contains(stdout, "Examples:") || !strings.Contains(stdout, "--scale") {
		t.Errorf("gen --help = %d:\n%s", code, stdout)
	}
}

// TestGenProfile: --profile reaches gen like every other command. With
// extra_bits = 2 instead of 1 (wire.md 4.2, 6.1: the bits USMN adds to a
// widened enum) the first ChatListener invoke of usmn-basic, enum 32 in 6
// bits under the default profile (usmn-basic.dump-V.txt), is written 7
// bits wide; dump reads a --scale capture cleanly only under the same
// profile.
func TestGenProfile(t *testing.T) {
	dir := t.TempDir()
	_, show, _ := runArgs("profile", "show")
	if !strings.Contains(show, "\nextra_bits = 1\n") {
		t.Fatalf("profile show lacks extra_bits = 1:\n%s", show)
	}
	prof := filepath.Join(dir, "wide.toml")
	os.WriteFile(prof, []byte(strings.Replace(show, "\nextra_bits = 1\n", "\nextra_bits = 2\n", 1)), 0o644)
	out := filepath.Join(dir, "wide.pcapng")
	if code, _, stderr := runArgs("--profile", prof, "gen", "../../fixtures/scenarios/usmn-basic.toml", "-o", out); code != 0 {
		t.Fatalf("gen --profile exit %d: %s", code, stderr)
	}
	if _, v, _ := runArgs("--profile", prof, "dump", "-V", out); !strings.Contains(v, "frame 11, 38 bytes, enum 32 in 7 bits (widened)") {
		t.Errorf("dump -V --profile of gen --profile lacks the 7-bit widened enum 32:\n%s", v)
	}
	scale := filepath.Join(dir, "scale.pcapng")
	if code, _, stderr := runArgs("--profile", prof, "gen", "--scale", "100", "--conns", "2", "-o", scale); code != 0 {
		t.Fatalf("gen --scale --profile exit %d: %s", code, stderr)
	}
	_, same, _ := runArgs("--profile", prof, "dump", "--filter", "severity>=warn", scale)
	_, other, _ := runArgs("dump", "--filter", "severity>=warn", scale)
	if same != "" || other == "" {
		t.Errorf("gen --scale --profile: warnings under the same profile %q (want none), under the default %d bytes (want some)", same, len(other))
	}
	if code, _, stderr := runArgs("--profile", filepath.Join(dir, "none.toml"), "gen", "--scale", "10", "-o", filepath.Join(dir, "x.pcapng")); code != exitInput || !strings.Contains(stderr, "no such file") {
		t.Errorf("gen with a missing --profile: exit %d, %q; want 1 and the file's error", code, stderr)
	}
}

// TestGenRPCScale: gen --scale N --protocol ulinkrpc writes N ULinkRPC
// frames over --conns connections of --transport, which tables (from its
// summaries) and dump (from full records) both count.
func TestGenRPCScale(t *testing.T) {
	for _, tr := range []string{"tcp", "websocket", "kcp"} {
		path := filepath.Join(t.TempDir(), tr+".pcapng")
		code, stdout, stderr := runArgs("gen", "--scale", "900", "--conns", "5", "--protocol", "ulinkrpc", "--transport", tr, "-o", path)
		if code != 0 || !strings.Contains(stdout, "5 connections, 900 messages") {
			t.Fatalf("gen --protocol ulinkrpc --transport %s = exit %d, %q, %q", tr, code, stdout, stderr)
		}
		_, out, _ := runArgs("tables", "--json", path)
		var doc struct {
			Connections []struct {
				Proto, Transport string
				Messages         int
				RPC              struct {
					KeepAlive struct{ Pings, Pongs int } `json:"keepalive"`
				} `json:"rpc"`
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: tables --json: %v", tr, err)
		}
		conns, frames, pongs := 0, 0, 0
		for _, c := range doc.Connections {
			if c.Proto == "ulinkrpc" && c.Transport == tr {
				conns, frames, pongs = conns+1, frames+c.Messages, pongs+c.RPC.KeepAlive.Pongs
			}
		}
		_, dump, _ := runArgs("dump", "--json", path)
		if records := strings.Count(dump, `"proto":"ulinkrpc"`); conns != 5 || frames != 900 || pongs == 0 || records != 900 {
			t.Errorf("%s: tables --json has %d %s connections of %d frames with %d pongs, dump --json %d records; want 5, 900, some, 900", tr, conns, tr, frames, pongs, records)
		}
	}
}
