package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/scenario"
	"github.com/usmnscope/usmnscope/stats/report"
	statspane "github.com/usmnscope/usmnscope/views/stats"
)

// runStatsEach runs `stats args…` in-process with each seeing every
// record counted, and returns its output and error.
func runStatsEach(t *testing.T, each func(*report.Record), args ...string) (string, error) {
	t.Helper()
	var out, errw bytes.Buffer
	s := &streams{in: bytes.NewReader(nil), out: &out, err: &errw}
	root := &cobra.Command{Use: "usmnscope", SilenceUsage: true, SilenceErrors: true}
	addRootFlags(root)
	root.AddCommand(newCmdStats(s, func(o *statsOptions) error {
		o.each = each
		return runStats(o)
	}))
	root.SetArgs(append([]string{"stats"}, args...))
	err := root.Execute()
	return out.String(), err
}

// statsDoc is `stats --json` as a test reads it.
type statsDoc struct {
	Messages int   `json:"messages"`
	Bytes    int64 `json:"bytes"`
	Groups   []struct {
		By       string           `json:"by"`
		Key      string           `json:"key"`
		Proto    string           `json:"proto"`
		Dir      string           `json:"dir"`
		Messages int              `json:"messages"`
		Bytes    int64            `json:"bytes"`
		Bits     map[string]int64 `json:"bits"`
	} `json:"groups"`
	Latency []map[string]any `json:"latency"`
	Series  []struct {
		Messages int   `json:"messages"`
		Bytes    int64 `json:"bytes"`
	} `json:"series"`
}

var allBy = []string{"--by", "conn,dir,kind,listener,message,method"}

// statsFiles are every fixture capture and, when the shared corpus is
// there, every file of ../shared/corpus/tcpdump.
func statsFiles(t *testing.T) []string {
	var files []string
	for _, g := range []string{capturesDir + "/*.pcapng", capturesDir + "/scale/*", "../../fixtures/ulinkrpc/*.pcapng"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	corpus, _ := filepath.Glob(filepath.Join(sharedDir(t), "corpus", "tcpdump", "*"))
	if len(corpus) == 0 {
		t.Logf("no corpus under %s: fixtures only", sharedDir(t))
	}
	sort.Strings(corpus)
	for _, f := range corpus {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			files = append(files, f)
		}
	}
	return files
}

// TestStatsSumsHold (issue 26, must hold): for every fixture and corpus
// file, each message's bit split adds up to 8 × its bytes with no part
// negative, and in every grouping the groups' messages and bytes add up to
// the totals, each group's bits to 8 × its bytes, and the series to the
// totals.
func TestStatsSumsHold(t *testing.T) {
	files := statsFiles(t)
	msgs := 0
	for _, f := range files {
		bad := 0
		each := func(r *report.Record) {
			msgs++
			neg := false
			for _, v := range r.Bits {
				neg = neg || v < 0
			}
			if (r.Bits.Total() != 8*int64(r.Bytes) || neg) && bad < 3 {
				bad++
				t.Errorf("%s: message %d (%s, %d bytes): bits %v add up to %d; want %d, none negative", f, r.N, r.Kind, r.Bytes, r.Bits, r.Bits.Total(), 8*r.Bytes)
			}
		}
		out, err := runStatsEach(t, each, append([]string{"--json"}, append(allBy, f)...)...)
		if err != nil {
			// A file that is no capture at all (exit 1) has nothing to add up.
			continue
		}
		var doc statsDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Errorf("%s: stats --json: %v", f, err)
			continue
		}
		type sum struct {
			msgs  int
			bytes int64
		}
		per := map[string]*sum{}
		for _, b := range strings.Split(allBy[1], ",") {
			per[b] = &sum{}
		}
		for _, g := range doc.Groups {
			s := per[g.By]
			s.msgs += g.Messages
			s.bytes += g.Bytes
			var bits int64
			for _, v := range g.Bits {
				bits += v
			}
			if bits != 8*g.Bytes {
				t.Errorf("%s: group %s %q %s: bits add up to %d; want 8 × %d", f, g.By, g.Key, g.Dir, bits, g.Bytes)
			}
		}
		for b, s := range per {
			if s.msgs != doc.Messages || s.bytes != doc.Bytes {
				t.Errorf("%s: by %s: groups add up to %d messages, %d bytes; want %d, %d", f, b, s.msgs, s.bytes, doc.Messages, doc.Bytes)
			}
		}
		var ser sum
		for _, p := range doc.Series {
			ser.msgs += p.Messages
			ser.bytes += p.Bytes
		}
		if ser.msgs != doc.Messages || ser.bytes != doc.Bytes {
			t.Errorf("%s: series add up to %d messages, %d bytes; want %d, %d", f, ser.msgs, ser.bytes, doc.Messages, doc.Bytes)
		}
	}
	t.Logf("%d files, %d messages", len(files), msgs)
}

// spanClass is the test's own reading of outputs.md "bits" for an
// Unturned field of a message kind: framing is the prefix alone, the
// listener definition is Listener_Type_Name and Listener_Version of an
// invoke, padding fields are padding, the listener payload and a vanilla
// message's parameters are payload, the rest (enum, listener header,
// negotiate fields, marker) header.
func spanClass(msg, name string) string {
	top := name
	if i := strings.IndexAny(name, ".["); i >= 0 {
		top = name[:i]
	}
	switch {
	case top == "padding":
		return "padding"
	case msg == "NegotiateListenerDetails":
		return "header"
	case msg == "InvokeMessageListener" && (top == "Listener_Type_Name" || top == "Listener_Version"):
		return "definition"
	case top == "payload" || top == "undecoded" || top == "legacy_data":
		return "payload"
	}
	switch top {
	case "enum", "Has_Listener_Definition", "Serverside_ID_Bit_Count", "Listener_ID", "Has_Client_ID",
		"Clientside_Listener_ID", "Serverside_Listener_ID", "mode", "marker", "trailer", "channel", "call_index", "method":
		return "header"
	}
	return "payload"
}

// TestStatsByMessageMatchesDumpSpans (issue 26, must hold): `stats --by
// message` on the schema fixture equals what this test counts from `dump
// --json`'s records: messages, bytes (len plus the 2-byte prefix) and the
// bit split, each bit given to the first field listed that covers it on a
// bitmap (not stats' sweep), bits no field covers as padding.
func TestStatsByMessageMatchesDumpSpans(t *testing.T) {
	capf := fixture(t, "usmn-schemas.pcapng")
	schemas, _ := filepath.Glob("../../fixtures/schemas/*.toml")
	var sargs []string
	for _, s := range schemas {
		sargs = append(sargs, "--schema", s)
	}
	code, dump, errs := run(t, nil, append(append([]string{"dump", "--json"}, sargs...), capf)...)
	if code != 0 {
		t.Fatalf("dump --json: exit %d: %s", code, errs)
	}
	type group struct {
		Messages int
		Bytes    int64
		Bits     map[string]int64
	}
	want := map[string]*group{}
	for _, line := range strings.Split(strings.TrimSpace(dump), "\n") {
		var rec struct {
			Msg            string `json:"msg"`
			Dir            string `json:"dir"`
			Len            int    `json:"len"`
			PayloadMessage string `json:"payload_message"`
			Fields         []struct {
				Name string `json:"name"`
				Bit  int    `json:"bit"`
				Bits int    `json:"bits"`
			} `json:"fields"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		key := rec.PayloadMessage
		if key == "" {
			key = "(none)"
		}
		k := key + " " + rec.Dir
		g := want[k]
		if g == nil {
			g = &group{Bits: map[string]int64{"framing": 0, "header": 0, "definition": 0, "payload": 0, "padding": 0}}
			want[k] = g
		}
		g.Messages++
		g.Bytes += int64(rec.Len + 2)
		g.Bits["framing"] += 16
		owner := make([]string, 8*rec.Len)
		for _, f := range rec.Fields {
			for b := f.Bit; b < f.Bit+f.Bits && b < len(owner); b++ {
				if b >= 0 && owner[b] == "" {
					owner[b] = spanClass(rec.Msg, f.Name)
				}
			}
		}
		for _, o := range owner {
			if o == "" {
				o = "padding"
			}
			g.Bits[o]++
		}
	}
	out, err := runStatsEach(t, nil, append(append([]string{"--json", "--by", "message"}, sargs...), capf)...)
	if err != nil {
		t.Fatal(err)
	}
	var doc statsDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]*group{}
	for _, g := range doc.Groups {
		got[g.Key+" "+g.Dir] = &group{Messages: g.Messages, Bytes: g.Bytes, Bits: g.Bits}
	}
	if len(want) < 4 {
		t.Fatalf("dump --json gave %d payload messages; the fixture has more", len(want))
	}
	if !reflect.DeepEqual(got, want) {
		for k, w := range want {
			t.Errorf("stats --by message %q = %+v; dump --json spans count %+v", k, got[k], w)
		}
	}
}

// TestStatsGolden compares the text and CSV outputs with golden files.
func TestStatsGolden(t *testing.T) {
	schemas, _ := filepath.Glob("../../fixtures/schemas/*.toml")
	var sargs []string
	for _, s := range schemas {
		sargs = append(sargs, "--schema", s)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"usmn-basic.stats.txt", []string{fixture(t, "usmn-basic.pcapng")}},
		{"pings.stats.txt", []string{"--by", "conn", "--by", "dir", "--interval", "5ms", fixture(t, "pings.pcapng")}},
		{"usmn-schemas.stats.txt", append(append([]string{"--by", "message,listener"}, sargs...), fixture(t, "usmn-schemas.pcapng"))},
		{"usmn-schemas.stats.csv", append(append([]string{"--csv", "--by", "message"}, sargs...), fixture(t, "usmn-schemas.pcapng"))},
		{"ulinkrpc/tcp-json.stats.txt", []string{"--contracts", "../../fixtures/ulinkrpc/contracts", "--by", "method", "--by", "kind", "../../fixtures/ulinkrpc/tcp-json.pcapng"}},
	} {
		code, out, errs := run(t, nil, append([]string{"stats"}, tc.args...)...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", tc.name, code, errs)
			continue
		}
		golden(t, tc.name, out)
	}
}

// TestStatsAtAgrees (issue 26): `stats --at N` (the capture cut at N)
// prints what a full read counting only messages up to N prints, and its
// ping and request latencies are those of `tables --at N`.
func TestStatsAtAgrees(t *testing.T) {
	for _, f := range []string{fixture(t, "usmn-basic.pcapng"), fixture(t, "pings.pcapng"), fixture(t, "two-conns.pcapng"), "../../fixtures/ulinkrpc/tcp-json.pcapng", "../../fixtures/ulinkrpc/kcp-json.pcapng"} {
		for _, n := range []int{1, 3, 6, 10, 15} {
			at := fmt.Sprint(n)
			code, cut, errs := run(t, nil, "stats", "--json", "--by", "conn,kind", "--at", at, f)
			if code == 2 && strings.Contains(errs, "the capture has") {
				continue
			}
			if code != 0 {
				t.Fatalf("stats --at %s %s: exit %d: %s", at, f, code, errs)
			}
			_, full, _ := run(t, nil, "stats", "--json", "--by", "conn,kind", "--filter", "n<="+at, f)
			if cut != full {
				t.Errorf("%s: stats --at %s =\n%s\nwant (full read, n<=%s)\n%s", f, at, cut, at, full)
			}
			_, tables, _ := run(t, nil, "tables", "--json", "--at", at, f)
			checkLatencyAgainstTables(t, f, at, cut, tables)
		}
	}
}

// checkLatencyAgainstTables compares stats' ping and rpc latency objects
// with tables'.
func checkLatencyAgainstTables(t *testing.T, f, at, statsOut, tablesOut string) {
	t.Helper()
	var sd statsDoc
	var td struct {
		Connections []struct {
			Conn string                     `json:"conn"`
			Ping map[string]json.RawMessage `json:"ping"`
			RPC  *struct {
				Methods []struct {
					ServiceID int             `json:"service_id"`
					MethodID  int             `json:"method_id"`
					Latency   json.RawMessage `json:"latency_ns"`
				} `json:"methods"`
			} `json:"rpc"`
		} `json:"connections"`
	}
	if json.Unmarshal([]byte(statsOut), &sd) != nil || json.Unmarshal([]byte(tablesOut), &td) != nil {
		t.Fatalf("%s --at %s: bad JSON", f, at)
	}
	want := map[string]string{}
	for _, c := range td.Connections {
		for d, raw := range c.Ping {
			var st struct {
				RTT json.RawMessage `json:"rtt_ns"`
			}
			json.Unmarshal(raw, &st)
			if string(st.RTT) != "null" {
				want["ping "+c.Conn+" "+d] = canon(st.RTT)
			}
		}
		if c.RPC != nil {
			for _, m := range c.RPC.Methods {
				if string(m.Latency) != "null" {
					want[fmt.Sprintf("rpc %s %d.%d", c.Conn, m.ServiceID, m.MethodID)] = canon(m.Latency)
				}
			}
		}
	}
	got := map[string]string{}
	for _, l := range sd.Latency {
		b, _ := json.Marshal(l["rtt_ns"])
		switch l["what"] {
		case "ping":
			got[fmt.Sprintf("ping %s %s", l["conn"], l["dir"])] = canon(b)
		case "rpc":
			b, _ = json.Marshal(l["latency_ns"])
			got[fmt.Sprintf("rpc %s %v.%v", l["conn"], l["service_id"], l["method_id"])] = canon(b)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s --at %s: stats latencies %v; tables %v", f, at, got, want)
	}
}

// canon is a JSON object with its keys sorted.
func canon(b []byte) string {
	var v map[string]any
	json.Unmarshal(b, &v)
	out, _ := json.Marshal(v)
	return string(out)
}

// TestStatsPaneFilterSelectsGroup: the display filter the statistics
// pane applies on Enter (views/stats.FilterExpr) selects exactly the
// group's messages: dump --filter counts each group's messages, in every
// grouping of the schema and ULinkRPC fixtures.
func TestStatsPaneFilterSelectsGroup(t *testing.T) {
	plainOnly(t, "every statistics group's filter")
	schemas, _ := filepath.Glob("../../fixtures/schemas/*.toml")
	var sargs []string
	for _, s := range schemas {
		sargs = append(sargs, "--schema", s)
	}
	sargs = append(sargs, "--contracts", "../../fixtures/ulinkrpc/contracts")
	for _, f := range []string{fixture(t, "usmn-schemas.pcapng"), fixture(t, "usmn-basic.pcapng"), "../../fixtures/ulinkrpc/tcp-json.pcapng", "../../fixtures/ulinkrpc/kcp-json.pcapng"} {
		out, err := runStatsEach(t, nil, append(append([]string{"--json"}, append(allBy, sargs...)...), f)...)
		if err != nil {
			t.Fatal(err)
		}
		var doc statsDoc
		json.Unmarshal([]byte(out), &doc)
		for _, g := range doc.Groups {
			gr := groupResult(t, g.By, g.Key, g.Proto, g.Dir)
			expr := statspane.FilterExpr(gr)
			code, dump, errs := run(t, nil, append(append([]string{"dump", "--json", "--filter", expr}, sargs...), f)...)
			if code != 0 {
				t.Errorf("dump --filter %q: exit %d: %s", expr, code, errs)
				continue
			}
			if n := strings.Count(dump, "\n"); n != g.Messages {
				t.Errorf("%s: group %s %q %s %s has %d messages; dump --filter %q prints %d", filepath.Base(f), g.By, g.Key, g.Proto, g.Dir, g.Messages, expr, n)
			}
		}
	}
}

// groupResult is a report.GroupResult with what FilterExpr reads.
func groupResult(t *testing.T, by, key, proto, dir string) *report.GroupResult {
	b, err := report.ParseBy(by)
	if err != nil {
		t.Fatal(err)
	}
	g := &report.Group{By: b, Key: key, Dir: dissect.C2S}
	if proto == "ulinkrpc" {
		g.Proto = report.ULinkRPC
	}
	if dir == "s2c" {
		g.Dir = dissect.S2C
	}
	return &report.GroupResult{Group: g}
}

// TestStatsTallyAndMessageAgree: a record read from the host's tally of a
// message (no filter, or one the index record answers) and one read from
// the whole Message (a filter that needs it: len) are the same record:
// stats prints the same bytes either way.
//
// The generated capture has more messages than a block of index records
// (4096), with pings across 16 connections: the tally's stream hands an
// asker out before its answer (session.Stream.Tallies) and releases its
// record, which the answer's pairing must then leave alone.
func TestStatsTallyAndMessageAgree(t *testing.T) {
	files, _ := filepath.Glob(capturesDir + "/*.pcapng")
	rpcFiles, _ := filepath.Glob("../../fixtures/ulinkrpc/*.pcapng")
	scale := filepath.Join(t.TempDir(), "scale.pcapng")
	sf, err := os.Create(scale)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (scenario.Scale{Messages: 20000, Conns: 16, Seed: 7}).Generate(sf, scenario.PCAPNG); err != nil {
		t.Fatal(err)
	}
	if err := sf.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range append(append(files, rpcFiles...), scale) {
		args := append([]string{"--json"}, allBy...)
		tally, err1 := runStatsEach(t, nil, append(args, f)...)
		whole, err2 := runStatsEach(t, nil, append(args, "--filter", "len>=0 || len<0", f)...)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", f, err1, err2)
		}
		if tally != whole {
			t.Errorf("%s: stats from the tally =\n%s\nfrom the Message =\n%s", f, tally, whole)
		}
	}
}
