package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

func fixture(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(capturesDir, name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("fixture %s missing: %v", name, err)
	}
	return p
}

func TestExitCodes(t *testing.T) {
	basic := fixture(t, "usmn-basic.pcapng")
	notCapture := filepath.Join(t.TempDir(), "text.pcap")
	os.WriteFile(notCapture, []byte("this is not a capture file\n"), 0o644)
	badProfile := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(badProfile, []byte("no_such_key = 1\n"), 0o644)
	whole, _ := os.ReadFile(basic)
	cut := filepath.Join(t.TempDir(), "cut.pcapng") // breaks off in message 12's packet
	os.WriteFile(cut, whole[:3000], 0o644)
	headerOnly := filepath.Join(t.TempDir(), "header.pcapng") // not even a section header
	os.WriteFile(headerOnly, whole[:10], 0o644)
	tests := []struct {
		args []string
		code int
		err  string // substring of stderr; "" = stderr must be empty
	}{
		{[]string{"dump", basic}, exitOK, ""},
		{[]string{"dump", cut}, exitOK, ""}, // what was read is shown; the cut is a finding
		{[]string{"dump", headerOnly}, exitInput, "pcapng header"},
		{[]string{"dump", fixture(t, "usmn-midstream.pcapng")}, exitOK, ""}, // findings still exit 0
		{[]string{"dump", "/nonexistent/x.pcapng"}, exitInput, "no such file"},
		{[]string{"dump", notCapture}, exitInput, "not a pcap or pcapng"},
		{[]string{"tables", "/nonexistent/x.pcapng"}, exitInput, "no such file"},
		{[]string{"--profile", badProfile, "dump", basic}, exitInput, "unknown key no_such_key"},
		{[]string{"--profile", "/nonexistent.toml", "profile", "show"}, exitInput, "no such file"},
		{[]string{"dump"}, exitUsage, "dump: missing CAPTURE"},
		{[]string{"dump", "--nope", basic}, exitUsage, "unknown flag"},
		{[]string{"dump", "--json", "-V", basic}, exitUsage, "exclude each other"},
		{[]string{"dump", "--filter", "lisener~Chat", basic}, exitUsage, "unknown field \"lisener\""},
		{[]string{"tables", "--at", "999", basic}, exitUsage, "has 22 messages"},
		{[]string{"tables", "--at", "-1", basic}, exitUsage, "start at 1"},
		{[]string{"bits", "zz"}, exitUsage, "not a hex digit"},
		{[]string{"bits", "8"}, exitUsage, "odd number"},
		{[]string{"bits", "--dir", "up", "00"}, exitUsage, "want c2s or s2c"},
		{[]string{"bits"}, exitUsage, "bits: missing HEX"},
		{[]string{"nosuchcommand"}, exitUsage, "unknown command"},
		{[]string{"profile"}, exitUsage, "name a subcommand"},
	}
	for _, tt := range tests {
		code, _, errOut := run(t, nil, tt.args...)
		if code != tt.code {
			t.Errorf("usmnscope %s: exit %d; want %d (stderr %q)", strings.Join(tt.args, " "), code, tt.code, errOut)
		}
		if tt.err == "" && errOut != "" || !strings.Contains(errOut, tt.err) {
			t.Errorf("usmnscope %s: stderr %q; want it to contain %q", strings.Join(tt.args, " "), errOut, tt.err)
		}
		if tt.code == exitInput && strings.Count(errOut, "\n") != 1 {
			t.Errorf("usmnscope %s: stderr %q; want one line", strings.Join(tt.args, " "), errOut)
		}
	}
}

func TestFilterErrorPointsAtBadPart(t *testing.T) {
	_, _, errOut := run(t, nil, "dump", "--filter", "msg==Kicked && lisener~Chat", fixture(t, "usmn-basic.pcapng"))
	want := "  msg==Kicked && lisener~Chat\n                 ^^^^^^^\n"
	if !strings.HasSuffix(errOut, want) {
		t.Errorf("filter error %q; want it to end with %q", errOut, want)
	}
}

// TestHostileStrings: every wire string is escaped in text output (no
// ESC, CSI, BEL or bidi override reaches the terminal) while JSON keeps the
// exact string (outputs.md).
func TestHostileStrings(t *testing.T) {
	hostile := fixture(t, "hostile.pcapng")
	raw := []string{"\x1b", "\u009b", "\x07", "\u202e"}
	for _, args := range [][]string{{"dump", hostile}, {"dump", "-V", hostile}, {"tables", hostile}} {
		_, out, _ := run(t, nil, args...)
		for _, r := range raw {
			if strings.Contains(out, r) {
				t.Errorf("usmnscope %s prints raw %q", strings.Join(args, " "), r)
			}
		}
		if !strings.Contains(out, `\x1b[2J\x1b[31mEvil.ClearScreen`) || !strings.Contains(out, `Evil.\u202eresUgolC`) {
			t.Errorf("usmnscope %s lacks the escaped hostile type names", strings.Join(args, " "))
		}
	}
	_, out, _ := run(t, nil, "dump", "--json", "--filter", "n==3", hostile)
	var rec struct {
		Listener struct{ Type string } `json:"listener"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("dump --json: %v in %q", err, out)
	}
	if want := "\x1b[2J\x1b[31mEvil.ClearScreen, Evil"; rec.Listener.Type != want {
		t.Errorf("dump --json listener.type = %q; want the exact wire string %q", rec.Listener.Type, want)
	}
	_, out, _ = run(t, nil, "tables", "--json", hostile)
	if !strings.Contains(out, `"\u001b[2J\u001b[31mEvil.ClearScreen, Evil"`) {
		t.Errorf("tables --json does not keep the exact type string (JSON-escaped): %.300s", out)
	}
}

// TestDumpJSONContract checks the outputs.md keys and numbering on a
// capture whose scenario is known (fixtures/scenarios/usmn-basic.toml).
func TestDumpJSONContract(t *testing.T) {
	_, out, _ := run(t, nil, "dump", "--json", fixture(t, "usmn-basic.pcapng"))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 22 {
		t.Fatalf("dump --json printed %d records; want 22", len(lines))
	}
	for i, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
		for _, k := range []string{"n", "frame", "time", "conn", "dir", "len", "enum", "msg", "fields", "expert"} {
			if _, ok := rec[k]; !ok {
				t.Errorf("record %d lacks key %q", i+1, k)
			}
		}
		if n := rec["n"].(float64); int(n) != i+1 {
			t.Errorf("record %d has n = %v; want %d", i+1, n, i+1)
		}
		if _, err := time.Parse(time.RFC3339Nano, rec["time"].(string)); err != nil {
			t.Errorf("record %d time %q: %v", i+1, rec["time"], err)
		}
		msg := rec["msg"].(string)
		_, hasListener := rec["listener"]
		if usmn := msg == "InvokeMessageListener" || msg == "NegotiateListenerDetails"; usmn != hasListener {
			t.Errorf("record %d (%s): listener present = %v", i+1, msg, hasListener)
		}
		if _, ok := rec["payload_bits"]; ok != (msg == "InvokeMessageListener") {
			t.Errorf("record %d (%s): payload_bits present = %v", i+1, msg, ok)
		}
	}
	// The scenario's first S→C invoke defines ChatListener as server ID 0.
	_, out, _ = run(t, nil, "dump", "--json", "--filter", "msg==InvokeMessageListener && dir==s2c && listener~Chat", fixture(t, "usmn-basic.pcapng"))
	var first struct {
		N        int
		Listener struct {
			Type     string
			ServerID *int `json:"server_id"`
		}
	}
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.N != 6 || first.Listener.Type != "Sample.ChatListener, Sample" || first.Listener.ServerID == nil || *first.Listener.ServerID != 0 {
		t.Errorf("first S→C ChatListener invoke = %+v; want n 6, server ID 0", first)
	}
}

func TestDumpFromStdin(t *testing.T) {
	data, err := os.ReadFile(fixture(t, "usmn-basic.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	code, fromStdin, errOut := run(t, data, "dump", "-")
	_, fromFile, _ := run(t, nil, "dump", fixture(t, "usmn-basic.pcapng"))
	if code != exitOK || errOut != "" || fromStdin != fromFile {
		t.Errorf("dump - = exit %d, stderr %q, %d bytes; want the output of dump FILE (%d bytes)", code, errOut, len(fromStdin), len(fromFile))
	}
}

func TestDumpFilterLines(t *testing.T) {
	_, out, _ := run(t, nil, "dump", "--filter", "dir==c2s && msg~Negotiate", fixture(t, "usmn-basic.pcapng"))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// Scenario usmn-basic: the client sends TellServerMissingListener (15)
	// and RequestServerListenerId (16).
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "   15 ") || !strings.HasPrefix(lines[1], "   16 ") {
		t.Errorf("dump --filter printed\n%s\nwant messages 15 and 16", out)
	}
	for _, l := range lines {
		if !strings.Contains(l, " c2s NegotiateListenerDetails⁺ ") {
			t.Errorf("line %q lacks direction and widened name", l)
		}
	}
}

// errWriter fails every write with err, as a closed pipe does.
type errWriter struct{ err error }

func (w errWriter) Write(p []byte) (int, error) { return 0, w.err }

// TestClosedPipe: `usmnscope dump … | head` exits 0 without a word once
// the reader goes away.
func TestClosedPipe(t *testing.T) {
	var errw bytes.Buffer
	code := Execute([]string{"dump", fixture(t, "usmn-basic.pcapng")}, nil, errWriter{syscall.EPIPE}, &errw)
	if code != exitOK || errw.Len() != 0 {
		t.Errorf("dump into a closed pipe: exit %d, stderr %q; want 0 and nothing", code, errw.String())
	}
	code = Execute([]string{"dump", fixture(t, "usmn-basic.pcapng")}, nil, errWriter{errors.New("disk full")}, &errw)
	if code != exitInput || !strings.Contains(errw.String(), "disk full") {
		t.Errorf("dump into a failing writer: exit %d, stderr %q; want 1 and the error", code, errw.String())
	}
}

// TestHelpHasExamples: every command's --help shows an example.
func TestHelpHasExamples(t *testing.T) {
	root := newRoot(&streams{in: nil, out: io.Discard, err: io.Discard})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		path := strings.Fields(c.CommandPath())[1:]
		code, out, _ := run(t, nil, append(path, "--help")...)
		if code != exitOK || !strings.Contains(out, "Examples:") {
			t.Errorf("usmnscope %s --help: exit %d, no Examples section", strings.Join(path, " "), code)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, out, _ := run(t, nil, "completion", sh)
		if code != exitOK || !strings.Contains(out, "usmnscope") {
			t.Errorf("completion %s: exit %d, %d bytes", sh, code, len(out))
		}
	}
}

func TestProfileShow(t *testing.T) {
	_, out, _ := run(t, nil, "profile", "show")
	p, err := unturned.ParseProfile("shown", []byte(out))
	if err != nil {
		t.Fatalf("profile show output does not parse back: %v\n%s", err, out)
	}
	p.Name = "default"
	want := unturned.Default()
	want.Bounds = pipeline.DefaultBounds() // shown with capture's bounds stated
	if *p != *want {
		t.Errorf("profile show round trip = %+v; want the default profile %+v", p, want)
	}
	// wire.md 6.1 example profile, applied to every command via --profile.
	path := filepath.Join(t.TempDir(), "p.toml")
	os.WriteFile(path, []byte("game = \"3.24\"\nextra_bits = 2\nserver_invoke_listener = 33\nserver_negotiate = 34\nclient_invoke_listener = 64\nclient_negotiate = 65\n"), 0o644)
	_, out, _ = run(t, nil, "--profile", path, "profile", "show")
	if !strings.Contains(out, `game = "3.24"`) || !strings.Contains(out, "client_invoke_listener = 64") {
		t.Errorf("profile show with --profile:\n%s", out)
	}
	_, out, _ = run(t, nil, "--profile", path, "tables", "--json", fixture(t, "usmn-basic.pcapng"))
	if !strings.Contains(out, `"profile": "`+path+`"`) {
		t.Errorf("tables --json with --profile does not name the profile: %.200s", out)
	}
}

// TestBitsValues checks `bits` against wire.md 3's computed examples.
func TestBitsValues(t *testing.T) {
	tests := []struct {
		args  []string
		msg   string
		field string
		value any
	}{
		{[]string{"--dir", "s2c", "8c 00 00 62 79 65"}, "Kicked", "", "bye"},
		{[]string{"--dir", "s2c", "6a 70 00 33 2e 32 36 2e 33 2e 34"}, "Rejected", "", "3.26.3.4"},
		{[]string{"--dir", "s2c", "89:60:40:20:e0:30:0d"}, "Accepted", "query_port", 27015.0},
	}
	for _, tt := range tests {
		_, out, _ := run(t, nil, append(append([]string{"bits"}, tt.args...), "--json")...)
		var rec struct {
			Msg    string
			Fields []struct {
				Name  string
				Value any
			}
		}
		if err := json.Unmarshal([]byte(out), &rec); err != nil {
			t.Fatalf("bits %v: %v", tt.args, err)
		}
		found := false
		for _, f := range rec.Fields {
			found = found || (tt.field == "" || f.Name == tt.field) && f.Value == tt.value
		}
		if rec.Msg != tt.msg || !found {
			t.Errorf("bits %v = %s %+v; want %s with a field %q = %v", tt.args, rec.Msg, rec.Fields, tt.msg, tt.field, tt.value)
		}
	}
}

// TestHexdumpKeys: the bit-level hexdump marks each bit with its field's
// key, drawn like bitString (bit k at column 7−k). Kicked("bye"): enum A
// in bits 0..4, the string B from bit 5.
func TestHexdumpKeys(t *testing.T) {
	m := session.DecodeOne(nil, dissect.S2C, false, 0, []byte{0x8c, 0x00, 0x00, 0x62, 0x79, 0x65})
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	writeHexdump(w, m.Data, m.Fields)
	w.Flush()
	want := "   0  8c   1000 1100  BBBA AAAA\n" +
		"   1  00   0000 0000  BBBB BBBB\n" +
		"*\n" +
		"   3  62   0110 0010  BBBB BBBB\n" +
		"   4  79   0111 1001  BBBB BBBB\n" +
		"   5  65   0110 0101  BBBB BBBB\n"
	if b.String() != want {
		t.Errorf("writeHexdump(Kicked) =\n%s\nwant\n%s", b.String(), want)
	}
}

// panicSource panics on its second event, as a decoder bug would.
type panicSource struct{ n int }

func (s *panicSource) Next() (*capture.Event, error) {
	s.n++
	if s.n > 1 {
		panic("boom")
	}
	return &capture.Event{Kind: capture.EventNote, Level: capture.LevelWarn, Text: "first"}, nil
}
func (s *panicSource) Stats() capture.Stats { return capture.Stats{} }
func (s *panicSource) Close() error         { return nil }

// failSource fails after one event.
type failSource struct{ n int }

func (s *failSource) Next() (*capture.Event, error) {
	s.n++
	if s.n > 1 {
		return nil, errors.New("capture: truncated")
	}
	return &capture.Event{Kind: capture.EventNote, Level: capture.LevelError, Text: "x"}, nil
}
func (s *failSource) Stats() capture.Stats { return capture.Stats{Packets: int64(s.n)} }
func (s *failSource) Close() error         { return nil }

func TestFeedRecoversAndReports(t *testing.T) {
	dc := session.NewIndex(nil)
	err := pipeline.Feed(&panicSource{}, dc, nil)
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("pipeline.Feed(panicking source) = %v; want an error naming the panic", err)
	}
	fs := dc.Findings()
	if len(fs) != 2 || fs[0].Severity != dissect.Warn || fs[0].Group != dissect.Protocol || fs[1].Severity != dissect.Error || !strings.Contains(fs[1].Text, "boom") {
		t.Errorf("capture findings after a panic = %+v; want the first note (warn, protocol) and an error naming the panic", fs)
	}

	dc = session.NewIndex(nil)
	calls := 0
	err = pipeline.Feed(&failSource{}, dc, func(capture.Stats) { calls++ })
	if err == nil || err.Error() != "capture: truncated" || calls != 1 {
		t.Errorf("pipeline.Feed(failing source) = %v after %d progress calls; want the read error after 1", err, calls)
	}
	if fs := dc.Findings(); len(fs) != 1 || fs[0].Severity != dissect.Error {
		t.Errorf("findings = %+v; want the one error note", fs)
	}
}

// TestTreeBitStrings checks -V lines of usmn-basic message 6 (the first
// S→C ChatListener invoke, wire.md 4.3) computed by hand: widened enum 32 =
// 0b100000 in bits 0..5 (bit 5 set: column 2); Has_Listener_Definition at
// bit 6 (column 1); Serverside_ID_Bit_Count 2 = 0b00010 in bits 7..11
// (bit 7 clear in byte 0 column 0, bit 8 set in byte 1 column 7);
// Listener_ID 0 in the 2 bits 12..13 (byte 1 columns 3 and 2).
func TestTreeBitStrings(t *testing.T) {
	_, out, _ := run(t, nil, "dump", "-V", "--filter", "n==6", fixture(t, "usmn-basic.pcapng"))
	for _, want := range []string{
		"    0+6    ..10 0000 ",
		"    6+1    .1.. .... ",
		"    7+5    0... .... .... 0001 ",
		"   12+2    ..00 .... ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dump -V message 6 lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "= Has_Listener_Definition: true\n") || !strings.Contains(out, "= Serverside_ID_Bit_Count: 2\n") {
		t.Errorf("dump -V message 6 lacks the values:\n%s", out)
	}
}

// BenchmarkDump runs `dump` (text lines) over usmn-basic through the cobra
// entry point; ns/op covers reading, decoding and formatting 22 messages.
func BenchmarkDump(b *testing.B) {
	b.ReportAllocs()
	path := filepath.Join(capturesDir, "usmn-basic.pcapng")
	if _, err := os.Stat(path); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		if code := Execute([]string{"dump", path}, nil, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkDumpJSON is BenchmarkDump with --json (fields and all).
func BenchmarkDumpJSON(b *testing.B) {
	b.ReportAllocs()
	path := filepath.Join(capturesDir, "usmn-basic.pcapng")
	if _, err := os.Stat(path); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		if code := Execute([]string{"dump", "--json", path}, nil, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

func TestBitsFromStdin(t *testing.T) {
	code, fromStdin, errOut := run(t, []byte("8c 00 00\n62 79 65\n"), "bits", "--dir", "s2c", "-")
	_, fromArgs, _ := run(t, nil, "bits", "--dir", "s2c", "8c0000627965")
	if code != exitOK || errOut != "" || fromStdin != fromArgs {
		t.Errorf("bits - = exit %d, stderr %q,\n%s\nwant the output of bits HEX:\n%s", code, errOut, fromStdin, fromArgs)
	}
}

// TestBitsCuts: every shorter cut of a valid message decodes to an error
// finding, never a crash or a clean result (style.md).
func TestBitsCuts(t *testing.T) {
	for _, full := range []string{"8c0000627965", "6a7000332e32362e332e34", "8960402" + "0e0300d"} {
		for n := 1; n < len(full)/2; n++ {
			code, out, errOut := run(t, nil, "bits", "--dir", "s2c", "--json", full[:2*n])
			var rec struct {
				Expert []struct{ Severity string }
			}
			if code != exitOK || errOut != "" || json.Unmarshal([]byte(out), &rec) != nil {
				t.Errorf("bits %s: exit %d, stderr %q, output %q", full[:2*n], code, errOut, out)
				continue
			}
			hasError := false
			for _, e := range rec.Expert {
				hasError = hasError || e.Severity == "error"
			}
			if !hasError {
				t.Errorf("bits %s (a cut of %s): no error finding in %s", full[:2*n], full, out)
			}
		}
	}
}

// TestTablesAt: usmn-basic after message 10 (TellClientListenerId for
// client 4002 → server 1, fixtures/scenarios/usmn-basic.toml) knows server
// IDs 0 and 1, and client 4002 mapped to 1; 1 and 4002 changed at 10.
func TestTablesAt(t *testing.T) {
	_, out, _ := run(t, nil, "tables", "--json", "--at", "10", fixture(t, "usmn-basic.pcapng"))
	var doc struct {
		Connections []struct {
			Server []struct{ ID int } `json:"server_listeners"`
			Client []struct {
				ID       int
				ServerID *int `json:"server_id"`
			} `json:"client_listeners"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Connections) != 1 {
		t.Fatalf("tables --json --at 10: %v, %d connections", err, len(doc.Connections))
	}
	c := doc.Connections[0]
	if len(c.Server) != 2 || c.Server[0].ID != 0 || c.Server[1].ID != 1 {
		t.Errorf("server table at 10 = %+v; want IDs 0 and 1", c.Server)
	}
	if len(c.Client) != 1 || c.Client[0].ID != 4002 || c.Client[0].ServerID == nil || *c.Client[0].ServerID != 1 {
		t.Errorf("client table at 10 = %+v; want 4002 → 1", c.Client)
	}
	_, text, _ := run(t, nil, "tables", "--at", "10", fixture(t, "usmn-basic.pcapng"))
	// The connection line counts messages as of --at, like "messages" in
	// the JSON (outputs.md); the capture has 22.
	if !strings.Contains(text, ": 10 messages, ") {
		t.Errorf("tables --at 10 text does not count 10 messages:\n%s", text)
	}
	if !strings.Contains(text, "as of message 10") || !strings.Contains(text, "   * 1 ") || !strings.Contains(text, "   * 4002 ") {
		t.Errorf("tables --at 10 text lacks the as-of line or the changed marks:\n%s", text)
	}
}

// TestTruncatedCapture: a capture that breaks off keeps the messages read
// before the cut and says where it broke (outputs.md: still exit 0).
func TestTruncatedCapture(t *testing.T) {
	whole, err := os.ReadFile(fixture(t, "usmn-basic.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, whole[:3000], "dump", "-")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	last := lines[len(lines)-1]
	if code != exitOK || len(lines) < 10 || !strings.HasPrefix(last, "# capture: ") || !strings.Contains(last, "truncated") {
		t.Errorf("dump of a cut capture: exit %d, %d lines, last %q; want the messages before the cut and a truncation note", code, len(lines), last)
	}
}

// TestBitsJSONRecord: bits --json is one dump --json record (outputs.md)
// whose keys hold usable values even without a capture: message 1, a
// "conn" of the CLIENT:PORT-SERVER:PORT form. 0x8c: the low 5 bits are
// 01100, Kicked (12), vanilla width for s2c.
func TestBitsJSONRecord(t *testing.T) {
	code, out, errOut := run(t, nil, "bits", "--json", "--dir", "s2c", "8c 00 00 62 79 65")
	var rec struct {
		N    int
		Conn string
		Dir  string
		Msg  string
		Enum struct{ Value, Bits int }
	}
	if err := json.Unmarshal([]byte(out), &rec); code != exitOK || err != nil {
		t.Fatalf("bits --json: exit %d, %v, stderr %q", code, err, errOut)
	}
	if rec.N != 1 || rec.Conn != "0.0.0.0:0-0.0.0.0:0" || rec.Dir != "s2c" || rec.Msg != "Kicked" || rec.Enum.Value != 12 || rec.Enum.Bits != 5 {
		t.Errorf("bits --json = %+v; want n 1, conn 0.0.0.0:0-0.0.0.0:0, s2c Kicked, enum 12 in 5 bits", rec)
	}
}
