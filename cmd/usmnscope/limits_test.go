package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/scenario"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned"
)

// genCapture writes the scenario src (fixtures/README.md format) as a
// pcapng file in a temporary directory and returns its path.
func genCapture(t *testing.T, src string) string {
	t.Helper()
	sc, err := scenario.Parse("limits", []byte(src))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	path := filepath.Join(t.TempDir(), "limits.pcapng")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := sc.Generate(f, scenario.PCAPNG); err != nil {
		t.Fatalf("generate: %v", err)
	}
	return path
}

// lossCapture is one connection of client pings (each its own segment)
// whose third data segment is lost: every later client segment is
// out-of-order data the reassembly must buffer (capture package comment).
const lossCapture = `
name = "limits-loss"
[transport]
loss = [3]
[[connection]]
client = "10.0.0.2:50000"
server = "10.0.0.1:27016"
[[connection.action]]
do = "ping"
from = "client"
count = 40
`

// bigMessageCapture has a 40-byte message between pings.
const bigMessageCapture = `
name = "limits-big"
[[connection]]
client = "10.0.0.2:50000"
server = "10.0.0.1:27016"
[[connection.action]]
do = "ping"
from = "client"
[[connection.action]]
do = "raw"
from = "client"
hex = "00000000000000000000000000000000000000000000000000000000000000000000000000000000"
[[connection.action]]
do = "ping"
from = "client"
`

// dumpRun runs `usmnscope ARGS… dump [--json] CAPTURE` and checks it exits 0,
// returning stdout.
func dumpRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := run(t, nil, args...)
	if code != exitOK {
		t.Fatalf("usmnscope %s: exit %d; want 0 (hitting a bound is a finding, not a failure)\n%s", strings.Join(args, " "), code, errs)
	}
	return out
}

// messageCount counts dump's message lines (not the "# " trailer) whose
// text contains sub.
func messageCount(out, sub string) int {
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if l != "" && !strings.HasPrefix(l, "# ") && strings.Contains(l, sub) {
			n++
		}
	}
	return n
}

// expertTexts collects the finding texts of dump --json records.
func expertTexts(t *testing.T, out string) []string {
	t.Helper()
	var texts []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec struct {
			Expert []struct{ Text string } `json:"expert"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("dump --json line %q: %v", l, err)
		}
		for _, e := range rec.Expert {
			texts = append(texts, e.Text)
		}
	}
	return texts
}

func containsAny(texts []string, sub string) bool {
	for _, s := range texts {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestBoundFlowBuffer: --max-flow-buffer below what the lost segment makes
// the reassembly hold forces a skip, reported with the bound; the pings
// before the loss and the server's replies are kept.
func TestBoundFlowBuffer(t *testing.T) {
	path := genCapture(t, lossCapture)
	base := dumpRun(t, "dump", path)
	if strings.Contains(base, "buffer cap hit") {
		t.Fatalf("default bounds: a 40-segment loss hit the buffer cap:\n%s", base)
	}
	out := dumpRun(t, "--max-flow-buffer", "1900", "dump", path)
	if !strings.Contains(out, "out-of-order buffer cap hit") || !strings.Contains(out, "(1900 bytes per flow,") {
		t.Errorf("--max-flow-buffer 1900: no cap finding naming 1900 bytes per flow:\n%s", out)
	}
	if got := messageCount(out, "c2s"); got < 2 {
		t.Errorf("--max-flow-buffer 1900: %d client pings kept; want the ones before the loss and after the skip", got)
	}
	if got, want := messageCount(out, "s2c"), messageCount(base, "s2c"); got != want {
		t.Errorf("--max-flow-buffer 1900: %d server replies; want all %d (the other direction is not bounded)", got, want)
	}
}

// TestBoundTotalBuffer: the total cap binds even with the per-flow cap at
// its default.
func TestBoundTotalBuffer(t *testing.T) {
	path := genCapture(t, lossCapture)
	out := dumpRun(t, "--max-total-buffer", "1900", "dump", path)
	if !strings.Contains(out, "out-of-order buffer cap hit") || !strings.Contains(out, "(1048576 bytes per flow, 1900 in all)") {
		t.Errorf("--max-total-buffer 1900: no cap finding naming 1900 in all:\n%s", out)
	}
	if got := messageCount(out, "c2s"); got < 2 {
		t.Errorf("--max-total-buffer 1900: %d client pings kept; want the ones before the loss and after the skip", got)
	}
}

// TestBoundFlows: of two interleaved connections, --max-flows 1 tracks the
// first and reports the second; the first decodes as without the bound.
func TestBoundFlows(t *testing.T) {
	path := fixture(t, "two-conns.pcapng")
	base := dumpRun(t, "dump", path)
	first, second := messageCount(base, "10.0.0.2:50901"), messageCount(base, "10.0.0.3:50902")
	if first == 0 || second == 0 {
		t.Fatalf("two-conns without bounds: %d and %d messages; want both connections", first, second)
	}
	out := dumpRun(t, "--max-flows", "1", "dump", path)
	if !strings.Contains(out, "more than 1 TCP flows at once") {
		t.Errorf("--max-flows 1: no finding naming the bound:\n%s", out)
	}
	if got := messageCount(out, "10.0.0.2:50901"); got != first {
		t.Errorf("--max-flows 1: first connection has %d messages; want %d as without the bound", got, first)
	}
	if got := messageCount(out, "10.0.0.3:50902"); got != 0 {
		t.Errorf("--max-flows 1: second connection has %d messages; want 0 (not tracked)", got)
	}
}

// TestBoundMessage: a 40-byte message above --max-message 16 is a framing
// finding that names the limit; the ping before it is kept.
func TestBoundMessage(t *testing.T) {
	path := genCapture(t, bigMessageCapture)
	base := dumpRun(t, "dump", path)
	if strings.Contains(base, "above the limit") || messageCount(base, "c2s") != 3 {
		t.Fatalf("default bounds: want 3 client messages and no limit finding:\n%s", base)
	}
	out := dumpRun(t, "--max-message", "16", "dump", path)
	if !strings.Contains(out, "framing: length 40 above the limit 16") {
		t.Errorf("--max-message 16: no finding naming the limit:\n%s", out)
	}
	if got := messageCount(out, "PingRequest"); got < 1 {
		t.Errorf("--max-message 16: %d pings kept; want the one before the big message", got)
	}
}

// TestBoundTableEntries: with room for one listener per table, the later
// definitions are dropped with a finding; the first entry of each table is
// kept.
func TestBoundTableEntries(t *testing.T) {
	path := fixture(t, "usmn-basic.pcapng")
	out := dumpRun(t, "--max-table-entries", "1", "dump", "--json", path)
	if !containsAny(expertTexts(t, out), "listener table holds 1 entries; entry dropped") {
		t.Errorf("--max-table-entries 1: no finding naming the bound in dump --json")
	}
	var doc struct {
		Connections []struct {
			Server []json.RawMessage `json:"server_listeners"`
			Client []json.RawMessage `json:"client_listeners"`
		} `json:"connections"`
	}
	tables := dumpRun(t, "--max-table-entries", "1", "tables", "--json", path)
	if err := json.Unmarshal([]byte(tables), &doc); err != nil || len(doc.Connections) == 0 {
		t.Fatalf("tables --json: %v\n%s", err, tables)
	}
	c := doc.Connections[0]
	if len(c.Server) != 1 || len(c.Client) != 1 {
		t.Errorf("--max-table-entries 1: %d server and %d client entries; want 1 and 1 (the first kept)", len(c.Server), len(c.Client))
	}
}

// TestBoundUnresolved: a capture that starts mid-connection references
// listeners it never saw defined; with room for one unresolved reference
// the others are dropped with a finding, and the messages still decode.
func TestBoundUnresolved(t *testing.T) {
	path := fixture(t, "usmn-midstream.pcapng")
	base := dumpRun(t, "dump", "--json", path)
	out := dumpRun(t, "--max-unresolved", "1", "dump", "--json", path)
	if !containsAny(expertTexts(t, out), "unresolved queue holds 1 references") {
		t.Errorf("--max-unresolved 1: no finding naming the bound in dump --json")
	}
	if got, want := strings.Count(out, "\n"), strings.Count(base, "\n"); got != want {
		t.Errorf("--max-unresolved 1: %d messages; want all %d", got, want)
	}
}

// TestLimitsProfileAndFlag: a [limits] value in the profile takes effect,
// a flag takes effect, and the flag wins over the profile.
func TestLimitsProfileAndFlag(t *testing.T) {
	path := fixture(t, "two-conns.pcapng")
	prof := filepath.Join(t.TempDir(), "limits.toml")
	if err := os.WriteFile(prof, []byte("[limits]\nmax_flows = 1\nmax_flow_buffer = \"64KiB\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := dumpRun(t, "--profile", prof, "dump", path); !strings.Contains(out, "more than 1 TCP flows at once") {
		t.Errorf("profile max_flows = 1 did not take effect:\n%s", out)
	}
	if out := dumpRun(t, "--profile", prof, "--max-flows", "5", "dump", path); strings.Contains(out, "TCP flows at once") || messageCount(out, "10.0.0.3:50902") == 0 {
		t.Errorf("--max-flows 5 did not win over the profile's max_flows = 1:\n%s", out)
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"profile", "show"}, []string{"[limits]", "max_flows = 10000", "max_flow_buffer = 1048576"}},
		{[]string{"--profile", prof, "profile", "show"}, []string{"max_flows = 1\n", "max_flow_buffer = 65536"}},
		{[]string{"--profile", prof, "--max-flows", "5", "--max-message", "1KiB", "profile", "show"}, []string{"max_flows = 5\n", "max_flow_buffer = 65536", "max_message = 1024"}},
	}
	for _, tt := range tests {
		out := dumpRun(t, tt.args...)
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("usmnscope %s lacks %q:\n%s", strings.Join(tt.args, " "), w, out)
			}
		}
		if _, err := unturned.ParseProfile("shown", []byte(out)); err != nil {
			t.Errorf("usmnscope %s does not parse back: %v", strings.Join(tt.args, " "), err)
		}
	}
}

// TestLimitsBadValues: a bad flag is a usage error and a bad profile value
// an input error, each naming the key and the value.
func TestLimitsBadValues(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(prof, []byte("[limits]\nmax_table_entries = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--max-flows", "0", "profile", "show"}, exitUsage, "limits.max_flows: 0 is below 1"},
		{[]string{"--max-message", "70000", "profile", "show"}, exitUsage, "limits.max_message: 70000 is above 65535"},
		{[]string{"--max-flow-buffer", "1MB", "profile", "show"}, exitUsage, `size "1MB"`},
		{[]string{"--max-unresolved", "many", "profile", "show"}, exitUsage, "--max-unresolved"},
		{[]string{"--profile", prof, "profile", "show"}, exitInput, "limits.max_table_entries: 0 is below 1"},
	}
	for _, tt := range tests {
		code, _, errs := run(t, nil, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("usmnscope %s = exit %d, %q; want exit %d and %q", strings.Join(tt.args, " "), code, errs, tt.code, tt.want)
		}
	}
}

// TestLimitsDocumented parses the bounds table of SECURITY.md: every bound
// with a profile key is listed with its flag, and its documented default
// is the code's (pipeline.DefaultBounds: unturned's and capture's
// defaults, the flag's shown default), so the docs cannot drift.
func TestLimitsDocumented(t *testing.T) {
	data, err := os.ReadFile("../../SECURITY.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\|[^|]*\\| `--([a-z-]+)` \\| `([a-z_]+)` \\| ([^|]+) \\|")
	def := pipeline.DefaultBounds()
	seen := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(data), -1) {
		flagName, key, doc := m[1], m[2], strings.TrimSpace(m[3])
		seen[key] = true
		want, ok := def.Get(key)
		if !ok {
			t.Errorf("SECURITY.md lists %s, which is not a [limits] key", key)
			continue
		}
		if got, err := docValue(doc); err != nil || got != want {
			t.Errorf("SECURITY.md: %s default %q = %d (%v); want %d", key, doc, got, err, want)
		}
		root := newRoot(&streams{})
		f := root.PersistentFlags().Lookup(flagName)
		if f == nil {
			t.Errorf("SECURITY.md: flag --%s of %s does not exist", flagName, key)
			continue
		}
		if v, ok := f.Value.(*boundValue); !ok || v.key != key || v.v != want {
			t.Errorf("--%s: default %s for key %v; want %d for %s", flagName, f.DefValue, f.Value, want, key)
		}
	}
	for _, lf := range limitFlags {
		if !seen[lf.key] {
			t.Errorf("SECURITY.md bounds table lacks %s (--%s)", lf.key, lf.name)
		}
	}
	// The capture layer's own defaults (used when a library caller passes
	// zero) are the same numbers.
	for _, c := range []struct {
		key  string
		code int
	}{
		{"max_flow_buffer", capture.DefaultMaxBufferedPerFlow},
		{"max_total_buffer", capture.DefaultMaxBufferedTotal},
		{"max_flows", capture.DefaultMaxFlows},
		{"max_fragments", capture.DefaultMaxFragments},
		{"max_fragment_bytes", capture.DefaultMaxFragmentBytes},
		{"max_fragment_datagrams", capture.DefaultMaxFragmentDatagrams},
		{"max_interfaces", capture.DefaultMaxInterfaces},
		{"max_notes", capture.DefaultMaxNotes},
		{"max_decompressed", int(capture.DefaultMaxDecompressed)},
		{"max_findings", unturned.DefaultLimits().MaxFindings},
		{"max_rpc_buffer", ulinkrpc.DefaultMaxBuffer},
	} {
		if v, _ := def.Get(c.key); v != c.code {
			t.Errorf("pipeline.DefaultBounds %s = %d; capture's default is %d", c.key, v, c.code)
		}
	}
}

// docValue reads a default as SECURITY.md writes it: "1 MiB", "10,000",
// "65,535 bytes".
func docValue(s string) (int, error) {
	s = strings.TrimSuffix(strings.ReplaceAll(s, ",", ""), " bytes")
	if n, err := strconv.Atoi(s); err == nil {
		return n, nil
	}
	return unturned.ParseSize(strings.ReplaceAll(s, " ", ""))
}

// TestLimitFlagsReachCode sets each --max-* flag to a value of its own and
// checks that the profile show prints it and that it reaches the capture
// options or the decoder's limits it names.
func TestLimitFlagsReachCode(t *testing.T) {
	reach := map[string]func(o capture.Options, l unturned.Limits, r rpc.Config) int{
		"max_flow_buffer": func(o capture.Options, _ unturned.Limits, _ rpc.Config) int { return o.MaxBufferedPerFlow },
		"max_total_buffer": func(o capture.Options, l unturned.Limits, _ rpc.Config) int {
			return min(o.MaxBufferedTotal, l.MaxBuffered)
		},
		"max_flows":              func(o capture.Options, _ unturned.Limits, _ rpc.Config) int { return o.MaxFlows },
		"max_fragments":          func(o capture.Options, _ unturned.Limits, _ rpc.Config) int { return o.MaxFragments },
		"max_fragment_bytes":     func(o capture.Options, _ unturned.Limits, _ rpc.Config) int { return o.MaxFragmentBytes },
		"max_fragment_datagrams": func(o capture.Options, _ unturned.Limits, _ rpc.Config) int { return o.MaxFragmentDatagrams },
		"max_interfaces":         func(o capture.Options, _ unturned.Limits, _ rpc.Config) int { return o.MaxInterfaces },
		"max_notes":              func(o capture.Options, _ unturned.Limits, _ rpc.Config) int { return o.MaxNotes },
		"max_decompressed":       func(o capture.Options, _ unturned.Limits, _ rpc.Config) int { return int(o.MaxDecompressed) },
		"max_message":            func(_ capture.Options, l unturned.Limits, _ rpc.Config) int { return l.MaxMessage },
		"max_table_entries":      func(_ capture.Options, l unturned.Limits, _ rpc.Config) int { return l.MaxEntries },
		"max_unresolved":         func(_ capture.Options, l unturned.Limits, _ rpc.Config) int { return l.MaxUnresolved },
		"max_findings":           func(_ capture.Options, l unturned.Limits, _ rpc.Config) int { return l.MaxFindings },
		"max_rpc_buffer":         func(_ capture.Options, _ unturned.Limits, r rpc.Config) int { return r.Budget.Max },
		"max_inflate":            func(_ capture.Options, _ unturned.Limits, r rpc.Config) int { return r.Transform.KeepInflated },
	}
	for _, lf := range limitFlags {
		get, ok := reach[lf.key]
		if !ok {
			t.Errorf("--%s: no check of where %s goes", lf.name, lf.key)
			continue
		}
		const v = 777
		out := dumpRun(t, "--"+lf.name, strconv.Itoa(v), "profile", "show")
		if !strings.Contains(out, lf.key+" = "+strconv.Itoa(v)+"\n") {
			t.Errorf("--%s %d: profile show lacks %s = %d:\n%s", lf.name, v, lf.key, v, out)
		}
		p, err := unturned.ParseProfile("shown", []byte(out))
		if err != nil {
			t.Fatalf("--%s: profile show does not parse back: %v", lf.name, err)
		}
		var cfg rpc.Config
		rpcBounds(&cfg, p.Bounds)
		if got := get(boundOptions(capture.Options{}, p.Bounds), p.Bounds.Limits(), cfg); got != v {
			t.Errorf("--%s %d: the code runs with %d", lf.name, v, got)
		}
	}
}

// TestBoundFindings: --max-findings caps the findings kept on a
// connection; the last kept one says so.
func TestBoundFindings(t *testing.T) {
	path := genCapture(t, lossCapture)
	out := dumpRun(t, "--max-findings", "1", "dump", path)
	if !strings.Contains(out, "findings limit of 1 reached for this connection") {
		t.Errorf("--max-findings 1: no limit note:\n%s", out)
	}
}
