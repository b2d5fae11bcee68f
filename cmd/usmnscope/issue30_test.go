package main

import (
	"github.com/usmnscope/usmnscope/capture"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
)

// TestIssue30CommandLine: the smaller points of issue 30 that the command
// line shows, each of which the code before failed.
func TestIssue30CommandLine(t *testing.T) {
	// usmnscope --bogus said "usmnscope: usmnscope: unknown flag".
	if code, _, errOut := run(t, nil, "--bogus"); code != exitUsage || !strings.HasPrefix(errOut, "usmnscope: unknown flag: --bogus\n") {
		t.Errorf("usmnscope --bogus: exit %d, stderr %q; want 2 and %q first", code, errOut, "usmnscope: unknown flag: --bogus")
	}
	if _, _, errOut := run(t, nil, "dump", "--bogus", "x"); !strings.HasPrefix(errOut, "usmnscope: dump: unknown flag: --bogus\n") {
		t.Errorf("usmnscope dump --bogus: stderr %q; want it to name dump once", errOut)
	}
	// --version.
	if code, out, errOut := run(t, nil, "--version"); code != exitOK || !strings.HasPrefix(out, "usmnscope version ") || errOut != "" {
		t.Errorf("usmnscope --version: exit %d, stdout %q, stderr %q; want 0 and \"usmnscope version …\"", code, out, errOut)
	}
	// The root, dump and tables help name ULinkRPC in their first lines.
	for _, args := range [][]string{{"--help"}, {"dump", "--help"}, {"tables", "--help"}} {
		_, out, _ := run(t, nil, args...)
		first := strings.SplitN(out, "\n\n", 2)[0]
		if !strings.Contains(first, "ULinkRPC") {
			t.Errorf("usmnscope %s: first paragraph %q does not mention ULinkRPC", strings.Join(args, " "), first)
		}
	}
	// profile show prints the magic in hex, as profile infer does, and
	// reads it back.
	_, out, _ := run(t, nil, "profile", "show")
	if !strings.Contains(out, "\nmarker_magic = 0x4E4D5355\n") {
		t.Errorf("profile show: no %q line in\n%s", "marker_magic = 0x4E4D5355", out)
	}
	prof := filepath.Join(t.TempDir(), "p.toml")
	os.WriteFile(prof, []byte(out), 0o644)
	if code, again, errOut := run(t, nil, "--profile", prof, "profile", "show"); code != exitOK || strings.SplitN(again, "\n", 2)[1] != strings.SplitN(out, "\n", 2)[1] {
		t.Errorf("profile show of profile show's output: exit %d, stderr %q, output\n%s\nwant the same keys as\n%s", code, errOut, again, out)
	}
}

// TestIssue30WidenedMark: dump marks a widened message with the TUI's ⁺,
// not a "*" (which marks changed table entries).
func TestIssue30WidenedMark(t *testing.T) {
	_, out, _ := run(t, nil, "dump", fixture(t, "pings.pcapng"))
	if !strings.Contains(out, " c2s PingRequest⁺\n") || strings.Contains(out, "PingRequest*") {
		t.Errorf("dump pings.pcapng: want widened PingRequest⁺ lines and no PingRequest*; got\n%s", out)
	}
}

// TestIssue30Plurals: one of a thing is said in the singular.
func TestIssue30Plurals(t *testing.T) {
	_, out, _ := run(t, nil, "dump", fixture(t, "pings.pcapng"))
	if !strings.Contains(out, " 0 files +USMN v1 ids 1 bit\n") || strings.Contains(out, "1 bits") {
		t.Errorf("dump pings.pcapng: want \"ids 1 bit\", never \"1 bits\"; got\n%s", out)
	}
	for n, want := range map[int]string{0: "0 members", 1: "1 member", 2: "2 members"} {
		if got := dissect.Count(n, "member"); got != want {
			t.Errorf("dissect.Count(%d, member) = %q; want %q", n, got, want)
		}
	}
}

// TestIssue30Contracts: a --contracts folder that is empty, holds no
// contract or cannot be read is an error, not a silent decode without
// names.
func TestIssue30Contracts(t *testing.T) {
	c := filepath.Join(rpcFixturesDir, "tcp-json.pcapng")
	empty := t.TempDir()
	noContract := t.TempDir()
	os.WriteFile(filepath.Join(noContract, "a.cs"), []byte("namespace X { class Y {} }\n"), 0o644)
	for _, tt := range []struct {
		dir, want string
	}{
		{empty, "no C# sources (*.cs)"},
		{noContract, "no [RpcService] interface and no [MemoryPackable] type in its 1 C# source"},
		{"/nonexistent", "not a folder"},
	} {
		code, _, errOut := run(t, nil, "dump", "--contracts", tt.dir, c)
		if code != exitInput || !strings.Contains(errOut, tt.want) {
			t.Errorf("dump --contracts %s: exit %d, stderr %q; want 1 and %q", tt.dir, code, errOut, tt.want)
		}
	}
	if code, _, errOut := run(t, nil, "dump", "--contracts", filepath.Join(rpcFixturesDir, "contracts"), c); code != exitOK {
		t.Errorf("dump --contracts fixtures: exit %d, stderr %q", code, errOut)
	}
}

// TestIssue30CleanRPCConnection: a ULinkRPC connection whose frames are all
// plain and well-formed has no worst finding: the "settings unknown,
// classified as plain" note is listed, but does not make it read "note".
func TestIssue30CleanRPCConnection(t *testing.T) {
	dc := loadRPCFixture(t, "tcp-memorypack")
	conns := dc.Connections()
	if len(conns) != 1 {
		t.Fatalf("tcp-memorypack: %d connections; want 1", len(conns))
	}
	if c := conns[0]; c.HasFinding {
		t.Errorf("tcp-memorypack: connection worst %v; want none (a clean connection)", c.Worst)
	}
	fs, _ := dc.ConnFindings(conns[0].Conn)
	if len(fs) != 1 || !strings.Contains(fs[0].Text, "classified as plain") {
		t.Errorf("tcp-memorypack: connection findings %v; want the one classification note", fs)
	}
}

// TestExportPathBesideCapture: the name w offers is in the capture's
// folder (issue 30: it was the working folder).
func TestExportPathBesideCapture(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/data/caps/server.pcapng", "/data/caps/server-filtered.pcapng"},
		{"caps/old.pcap", "caps/old-filtered.pcapng"},
		{"plain", "plain-filtered.pcapng"},
	} {
		if got := capture.ExportPath(tt.in); got != tt.want {
			t.Errorf("capture.ExportPath(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
