package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// duckdbScript reads Parquet files with DuckDB's Node package (an
// independent reader: its own Parquet decoder, not parquet-go): for each
// SQL query given (one per line of standard input) it prints one JSON
// line {"names": [...], "types": [...], "rows": [[...], ...]}, the rows as
// the package's JSON (BIGINT as strings, MAP as [{key, value}]).
const duckdbScript = `
const { DuckDBInstance } = require(process.env.DUCKDB_NODE_API);
(async () => {
  const queries = require('fs').readFileSync(0, 'utf8').split('\n').filter(Boolean);
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  for (const q of queries) {
    const r = await c.runAndReadAll(q);
    process.stdout.write(JSON.stringify({names: r.columnNames(), types: r.columnTypes().map(t => t.toString()), rows: r.getRowsJson()}) + '\n');
  }
})().catch(e => { console.error(String(e)); process.exit(1); });
`

// duckdbNodeAPI returns the folder of the @duckdb/node-api package, or
// skips t with the reason: $USMNSCOPE_NPM (an npm --prefix folder), else
// the cache folder .ci/run installs it into.
func duckdbNodeAPI(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed (.ci/run installs it and @duckdb/node-api): the Parquet files are not read back by DuckDB")
	}
	prefix := os.Getenv("USMNSCOPE_NPM")
	if prefix == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("no cache folder for @duckdb/node-api: %v", err)
		}
		prefix = filepath.Join(cache, "usmnscope-npm")
	}
	dir := filepath.Join(prefix, "node_modules", "@duckdb", "node-api")
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		t.Skipf("@duckdb/node-api is not installed in %s (npm install --prefix %s @duckdb/node-api, as .ci/run does)", prefix, prefix)
	}
	return dir
}

// duckResult is one query's result.
type duckResult struct {
	Names []string       `json:"names"`
	Types []string       `json:"types"`
	Rows  [][]any        `json:"rows"`
	byCol map[string]int // column index by name
}

// duckQuery runs the queries through DuckDB's Node package in one node
// process.
func duckQuery(t *testing.T, api string, queries ...string) []duckResult {
	t.Helper()
	cmd := exec.Command("node", "-e", duckdbScript)
	cmd.Env = append(os.Environ(), "DUCKDB_NODE_API="+api)
	cmd.Stdin = strings.NewReader(strings.Join(queries, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node (DuckDB): %v: %s", err, stderr.String())
	}
	var res []duckResult
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	for range queries {
		var r duckResult
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("DuckDB output: %v", err)
		}
		r.byCol = map[string]int{}
		for i, n := range r.Names {
			r.byCol[n] = i
		}
		res = append(res, r)
	}
	return res
}

// exportColumns are outputs.md's columns as DuckDB types them (INT64
// BIGINT, INT32 INTEGER, STRING VARCHAR), in order; hex comes last with
// --hex.
var exportColumns = []struct{ name, typ string }{
	{"n", "BIGINT"}, {"time_ns", "BIGINT"}, {"host", "VARCHAR"}, {"capture", "VARCHAR"},
	{"frame", "BIGINT"}, {"conn", "VARCHAR"}, {"dir", "VARCHAR"}, {"proto", "VARCHAR"},
	{"msg", "VARCHAR"}, {"len", "INTEGER"}, {"summary", "VARCHAR"}, {"worst", "VARCHAR"},
	{"listener", "VARCHAR"}, {"client_id", "BIGINT"}, {"server_id", "BIGINT"},
	{"service", "VARCHAR"}, {"method", "VARCHAR"}, {"service_id", "INTEGER"},
	{"method_id", "INTEGER"}, {"request_id", "BIGINT"}, {"status", "VARCHAR"},
	{"pair", "BIGINT"}, {"latency_ns", "BIGINT"}, {"payload_message", "VARCHAR"},
	{"payload_method", "VARCHAR"}, {"payload", "MAP(VARCHAR, VARCHAR)"},
	{"seen", `STRUCT("capture" VARCHAR, "host" VARCHAR, "frame" BIGINT, "time_ns" BIGINT)[]`}, {"one_way_ns", "BIGINT"},
	{"missing_in", "VARCHAR[]"}, {"hex", "VARCHAR"},
}

// exportCase is one capture exported and dumped with the same flags.
type exportCase struct {
	name    string
	capture string
	more    []string // several captures: the others, after capture
	args    []string
	file    string // the Parquet file
	records []map[string]any
}

func exportCases(t *testing.T, dir string) []*exportCase {
	var cases []*exportCase
	for _, c := range fixtureCaptures(t) {
		cases = append(cases, &exportCase{name: filepath.Base(c), capture: c})
	}
	for _, c := range rpcCaptures(t) {
		cases = append(cases, &exportCase{name: "ulinkrpc/" + filepath.Base(c), capture: c, args: rpcArgs(filepath.Base(c))})
	}
	schemas, _ := filepath.Glob("../../fixtures/schemas/*.toml")
	var sargs []string
	for _, s := range schemas {
		sargs = append(sargs, "--schema", s)
	}
	cases = append(cases, &exportCase{name: "schemas/usmn-schemas.pcapng", capture: fixture(t, "usmn-schemas.pcapng"), args: sargs})
	// Both ends of one session: seen, one_way_ns and missing_in.
	cases = append(cases, &exportCase{name: "two-ends", capture: filepath.Join(twoEndsDir, "client.pcapng"), more: []string{filepath.Join(twoEndsDir, "server.pcapng")}})
	for i, c := range cases {
		c.file = filepath.Join(dir, fmt.Sprintf("%d.parquet", i))
		args := append([]string{"export", "--format", "parquet", "--hex", "-o", c.file}, c.args...)
		if strings.HasPrefix(c.name, "schemas/") {
			args = append(args, "--payload-columns")
		}
		caps := append([]string{c.capture}, c.more...)
		if code, _, errOut := run(t, nil, append(args, caps...)...); code != exitOK || errOut != "" {
			t.Fatalf("usmnscope %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
		}
		dargs := append(append([]string{"dump", "--json"}, c.args...), caps...)
		code, out, errOut := run(t, nil, dargs...)
		if code != exitOK || errOut != "" {
			t.Fatalf("usmnscope %s: exit %d, stderr %q", strings.Join(dargs, " "), code, errOut)
		}
		dec := json.NewDecoder(strings.NewReader(out))
		dec.UseNumber()
		for dec.More() {
			var r map[string]any
			if err := dec.Decode(&r); err != nil {
				t.Fatalf("%s: dump --json: %v", c.name, err)
			}
			c.records = append(c.records, r)
		}
	}
	return cases
}

// TestExportParquetDuckDB reads every fixture's Parquet export with DuckDB
// (issue 27) and compares every row, column by column, and every column's
// type with outputs.md and the capture's `dump --json` records; the
// schema fixture also with --payload-columns. Then a query over two
// hosts' files joins on host.
func TestExportParquetDuckDB(t *testing.T) {
	plainOnly(t, "every fixture's Parquet through DuckDB")
	api := duckdbNodeAPI(t)
	dir := t.TempDir()
	cases := exportCases(t, dir)
	var queries []string
	for _, c := range cases {
		queries = append(queries, fmt.Sprintf("SELECT * FROM read_parquet('%s') ORDER BY n", c.file))
	}
	res := duckQuery(t, api, queries...)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) { compareExport(t, c, &res[i]) })
	}

	// Two hosts: the same capture exported as eu1 and us1, joined with a
	// table of regions on host.
	capture := fixture(t, "pings.pcapng")
	var files []string
	for _, h := range []string{"eu1", "us1"} {
		f := filepath.Join(dir, h+".parquet")
		if code, _, errOut := run(t, nil, "export", "--format", "parquet", "--host", h, "-o", f, capture); code != exitOK {
			t.Fatalf("export --host %s: exit %d: %s", h, code, errOut)
		}
		files = append(files, "'"+f+"'")
	}
	_, out, _ := run(t, nil, "dump", "--json", capture)
	n := strings.Count(out, "\n")
	pings := strings.Count(out, `"msg":"PingRequest"`)
	q := fmt.Sprintf(`WITH regions(host, region) AS (VALUES ('eu1', 'Europe'), ('us1', 'America'))
SELECT r.region, m.host, count(*) AS messages, count(*) FILTER (WHERE m.msg = 'PingRequest') AS pings
FROM read_parquet([%s]) m JOIN regions r ON m.host = r.host GROUP BY ALL ORDER BY r.region`, strings.Join(files, ", "))
	got := duckQuery(t, api, strings.ReplaceAll(q, "\n", " "))[0].Rows
	want := [][]any{{"America", "us1", json.Number(strconv.Itoa(n)), json.Number(strconv.Itoa(pings))},
		{"Europe", "eu1", json.Number(strconv.Itoa(n)), json.Number(strconv.Itoa(pings))}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("join on host = %v; want %v", got, want)
	}
}

// compareExport compares DuckDB's reading of c's Parquet file with c's
// dump --json records.
func compareExport(t *testing.T, c *exportCase, r *duckResult) {
	if len(r.Names) < len(exportColumns) {
		t.Fatalf("columns %v; want at least %d", r.Names, len(exportColumns))
	}
	for i, col := range exportColumns {
		if r.Names[i] != col.name || r.Types[i] != col.typ {
			t.Errorf("column %d = %s %s; want %s %s", i, r.Names[i], r.Types[i], col.name, col.typ)
		}
	}
	if len(r.Rows) != len(c.records) {
		t.Fatalf("%d rows; dump --json has %d records", len(r.Rows), len(c.records))
	}
	for i, rec := range c.records {
		row := r.Rows[i]
		for name, want := range expectedRow(t, rec) {
			got := row[r.byCol[name]]
			if !sameCell(got, want, r.Types[r.byCol[name]]) {
				t.Errorf("n=%v %s = %v (%T); want %v (%T)", rec["n"], name, got, got, want, want)
			}
		}
		// --payload-columns: each payload.<name> column holds the field
		// of that name, null when the record has none.
		fields := payloadOf(rec)
		for j := len(exportColumns); j < len(r.Names); j++ {
			name, typ := r.Names[j], r.Types[j]
			want, ok := fields[name]
			if !ok || want == nil {
				if row[j] != nil {
					t.Errorf("n=%v %s = %v; want null", rec["n"], name, row[j])
				}
				continue
			}
			if _, isStr := want.(string); typ == "VARCHAR" && !isStr {
				// A vector's or colour's JSON text.
				if !sameJSONText(row[j], want) {
					t.Errorf("n=%v %s (%s) = %v; want the JSON of %v", rec["n"], name, typ, row[j], want)
				}
				continue
			}
			if !sameCell(row[j], want, typ) {
				t.Errorf("n=%v %s (%s) = %v; want %v", rec["n"], name, typ, row[j], want)
			}
		}
	}
}

// payloadOf is the record's payload.* fields by name (the last of a name).
func payloadOf(rec map[string]any) map[string]any {
	out := map[string]any{}
	fs, _ := rec["fields"].([]any)
	for _, f := range fs {
		fm := f.(map[string]any)
		if name := fm["name"].(string); strings.HasPrefix(name, "payload.") {
			out[name] = fm["value"]
		}
	}
	return out
}

// expectedRow is what each outputs.md column holds for a dump --json
// record: nil where the record has no such value.
func expectedRow(t *testing.T, rec map[string]any) map[string]any {
	get := func(obj, key string) any {
		if m, ok := rec[obj].(map[string]any); ok {
			return m[key]
		}
		return nil
	}
	var worst any
	rank := map[string]int{"note": 1, "warn": 2, "error": 3}
	for _, f := range rec["expert"].([]any) {
		s := f.(map[string]any)["severity"].(string)
		if worst == nil || rank[s] > rank[worst.(string)] {
			worst = s
		}
	}
	tm, err := time.Parse(time.RFC3339Nano, rec["time"].(string))
	if err != nil {
		t.Fatalf("time %v: %v", rec["time"], err)
	}
	if ns := json.Number(strconv.FormatInt(tm.UnixNano(), 10)); rec["time_ns"] != ns {
		t.Errorf("n=%v: time_ns %v; want %v (the time %v)", rec["n"], rec["time_ns"], ns, rec["time"])
	}
	var payload any
	if fs := payloadOf(rec); len(fs) > 0 {
		payload = fs
	}
	return map[string]any{
		"n": rec["n"], "time_ns": rec["time_ns"], "host": rec["host"], "capture": rec["capture"],
		"frame": rec["frame"], "conn": rec["conn"], "dir": rec["dir"], "proto": rec["proto"],
		"msg": rec["msg"], "len": rec["len"], "summary": rec["summary"], "worst": worst,
		"listener": get("listener", "type"), "client_id": get("listener", "client_id"), "server_id": get("listener", "server_id"),
		"service": get("rpc", "service"), "method": get("rpc", "method"), "service_id": get("rpc", "service_id"),
		"method_id": get("rpc", "method_id"), "request_id": get("rpc", "request_id"), "status": get("rpc", "status"),
		"pair": rec["pair"], "latency_ns": rec["latency_ns"], "payload_message": rec["payload_message"],
		"payload_method": rec["payload_method"], "payload": payload, "hex": rec["hex"],
		"seen": rec["seen"], "one_way_ns": rec["one_way_ns"], "missing_in": rec["missing_in"],
	}
}

// sameCell compares a DuckDB JSON cell with a dump --json value: numbers
// by their text (BIGINTs come as strings), DOUBLEs within float32's
// precision (a float field is written with float32's shortest digits),
// a MAP as its entries with each value's JSON text decoded.
func sameCell(got, want any, typ string) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	switch {
	case strings.HasSuffix(typ, "[]"):
		// A list (of structs): DuckDB's JSON of it, BIGINTs as strings,
		// against the record's array.
		return fmt.Sprint(got) == fmt.Sprint(want)
	case typ == "MAP(VARCHAR, VARCHAR)":
		entries, ok := got.([]any)
		wm, ok2 := want.(map[string]any)
		if !ok || !ok2 || len(entries) != len(wm) {
			return false
		}
		for _, e := range entries {
			em := e.(map[string]any)
			w, ok := wm[em["key"].(string)]
			if !ok || !sameJSONText(em["value"], w) {
				return false
			}
		}
		return true
	case typ == "DOUBLE":
		g, err1 := strconv.ParseFloat(fmt.Sprint(got), 64)
		w, err2 := strconv.ParseFloat(fmt.Sprint(want), 64)
		return err1 == nil && err2 == nil && (g == w || math.Abs(g-w) <= 1e-6*math.Max(math.Abs(g), math.Abs(w)))
	}
	return fmt.Sprint(got) == fmt.Sprint(want)
}

// sameJSONText says whether cell is a string of JSON text whose value is
// want (both decoded with json.Number for numbers).
func sameJSONText(cell, want any) bool {
	text, ok := cell.(string)
	if !ok {
		return false
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	return dec.Decode(&v) == nil && reflect.DeepEqual(v, want)
}

// TestExportSeveralCaptures: export --format parquet of several captures
// numbers their messages once, in time order, a tie going to the capture
// given first (outputs.md "Several captures"): n is 1..N, each once; time_ns
// never runs backwards in n; each capture keeps its own order, its rows
// and its host (--host FILE=NAME); pair still names the partner, in the
// same capture.
func TestExportSeveralCaptures(t *testing.T) {
	api := duckdbNodeAPI(t)
	caps := []string{fixture(t, "two-conns.pcapng"), fixture(t, "pings.pcapng"), filepath.Join(rpcFixturesDir, "tcp-json.pcapng")}
	f := filepath.Join(t.TempDir(), "all.parquet")
	args := []string{"export", "--format", "parquet", "-o", f, "--host", "pings.pcapng=eu1", "--host", caps[0] + "=us1"}
	if code, _, errOut := run(t, nil, append(args, caps...)...); code != exitOK || errOut != "" {
		t.Fatalf("usmnscope %s: exit %d, %q", strings.Join(args, " "), code, errOut)
	}
	var total int
	counts := map[string]int{}
	for _, c := range caps {
		_, out, _ := run(t, nil, "dump", "--json", c)
		total += strings.Count(out, "\n")
		counts[filepath.Base(c)] = strings.Count(out, "\n")
	}
	file := "read_parquet('" + f + "')"
	res := duckQuery(t, api,
		"SELECT count(*), count(DISTINCT n), min(n), max(n) FROM "+file,
		"SELECT count(*) FROM (SELECT time_ns < lag(time_ns) OVER (ORDER BY n) AS back FROM "+file+") WHERE back",
		// Within a capture, n follows the capture's own order (frame,
		// then the order of the messages a frame completed).
		"SELECT count(*) FROM (SELECT frame < lag(frame) OVER (PARTITION BY capture ORDER BY n) AS back FROM "+file+") WHERE back",
		"SELECT capture, host, count(*) FROM "+file+" GROUP BY ALL ORDER BY capture",
		"SELECT count(*) FROM "+file+" a JOIN "+file+" b ON a.pair = b.n WHERE b.pair IS DISTINCT FROM a.n OR a.capture <> b.capture",
		"SELECT count(*) FROM "+file+" WHERE pair IS NOT NULL",
	)
	n := json.Number(strconv.Itoa(total))
	if got, want := fmt.Sprint(res[0].Rows), fmt.Sprint([][]any{{n, n, json.Number("1"), n}}); got != want {
		t.Errorf("count, distinct n, min, max = %s; want %s", got, want)
	}
	for i, what := range []string{"time_ns runs backwards in n", "a capture's frames run backwards in n"} {
		if got := fmt.Sprint(res[1+i].Rows); got != "[[0]]" {
			t.Errorf("%s: %s rows", what, got)
		}
	}
	want := fmt.Sprintf("[[pings.pcapng eu1 %d] [tcp-json.pcapng tcp-json %d] [two-conns.pcapng us1 %d]]",
		counts["pings.pcapng"], counts["tcp-json.pcapng"], counts["two-conns.pcapng"])
	if got := fmt.Sprint(res[3].Rows); got != want {
		t.Errorf("rows per capture = %s; want %s (dump --json: %v)", got, want, counts)
	}
	if got := fmt.Sprint(res[4].Rows); got != "[[0]]" {
		t.Errorf("pairs that do not name each other, or cross captures: %s", got)
	}
	if got := fmt.Sprint(res[5].Rows); got == "[[0]]" {
		t.Errorf("no pairs at all: the test shows nothing")
	}
}
