package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/usmnscope/usmnscope/scenario"
)

const docsDir = "../../docs"

// docKey is one documented JSON key: its path segments ("connections",
// "[]", "conn"; "<KEY>" matches any name) and whether its value is free
// ("any": the keys below it are a decoded value's, not the contract's).
type docKey struct {
	path     string
	segs     []string
	any      bool
	optional bool // "may also carry": documented, not required of a fixture
}

// keyRow is a table row of docs/*.md whose first cell is a key path.
var keyRow = regexp.MustCompile("^\\| `([^`]+)` \\| ([^|]+) \\|")

// docSections reads every `<!-- keys: NAME -->` table of docs/*.md: the
// documented keys of each JSON writer, by section name.
func docSections(t *testing.T) map[string][]docKey {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if len(files) == 0 {
		t.Fatalf("no docs in %s", docsDir)
	}
	out := map[string][]docKey{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		section := ""
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "<!-- keys: ") {
				section = strings.TrimSuffix(strings.TrimPrefix(line, "<!-- keys: "), " -->")
				continue
			}
			if section == "" {
				continue
			}
			if !strings.HasPrefix(line, "|") {
				if strings.TrimSpace(line) == "" {
					section = ""
				}
				continue
			}
			m := keyRow.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			typ := strings.TrimSpace(m[2])
			out[section] = append(out[section], docKey{path: m[1], segs: splitPath(m[1]), any: typ == "any", optional: strings.Contains(typ, "optional")})
		}
		fh.Close()
	}
	return out
}

// splitPath cuts "connections[].rpc.status.<STATUS>" into its segments,
// "[]" standing for an array's elements.
func splitPath(p string) []string {
	var segs []string
	for _, s := range strings.Split(p, ".") {
		for strings.HasSuffix(s, "[]") {
			s = strings.TrimSuffix(s, "[]")
			segs = append(segs, s, "[]")
			s = ""
		}
		if s != "" {
			segs = append(segs, s)
		}
	}
	return segs
}

// matches says whether the documented key d names the emitted path p, or,
// for a free value, a key below it.
func (d docKey) matches(p []string) bool {
	if len(p) < len(d.segs) || len(p) > len(d.segs) && !d.any {
		return false
	}
	for i, s := range d.segs {
		if s != p[i] && !(strings.HasPrefix(s, "<") && p[i] != "[]") {
			return false
		}
	}
	return true
}

// emittedKeys adds to keys every object key of v, as its path segments
// joined by NUL.
func emittedKeys(keys map[string]bool, v any, path []string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := append(append([]string(nil), path...), k)
			keys[strings.Join(p, "\x00")] = true
			emittedKeys(keys, x, p)
		}
	case []any:
		p := append(append([]string(nil), path...), "[]")
		for _, x := range v {
			emittedKeys(keys, x, p)
		}
	}
}

// jsonKeys runs one JSON writer and gathers the keys of what it printed
// (one document, or NDJSON).
func jsonKeys(t *testing.T, keys map[string]bool, args ...string) {
	t.Helper()
	code, out, errOut := run(t, nil, args...)
	if code != exitOK {
		t.Fatalf("usmnscope %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			// tables --json is one document over several lines.
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("usmnscope %s: not JSON: %v", strings.Join(args, " "), err)
			}
			emittedKeys(keys, v, nil)
			return
		}
		emittedKeys(keys, v, nil)
	}
}

// TestDocsJSONKeys checks docs/ against the JSON writers over every
// fixture capture (issue 30): every key that dump --json, bits --json,
// tables --json and profile infer --json print is documented in docs/, and
// every documented key of those sections is printed by some fixture. The
// sections of commands that do not exist yet (stats, export: docs/stats.md
// says "planned") are checked only once the command exists.
func TestDocsJSONKeys(t *testing.T) {
	plainOnly(t, "every documented key")
	t.Parallel()
	docs := docSections(t)
	unturnedCaps := fixtureCaptures(t)
	rpcCaps := rpcCaptures(t)
	schemas, _ := filepath.Glob(filepath.Join(schemasDir, "*.toml"))
	var withSchemas []string
	for _, s := range schemas {
		withSchemas = append(withSchemas, "--schema", s)
	}
	emitted := map[string]map[string]bool{"dump": {}, "tables": {}, "infer": {}}
	for _, c := range unturnedCaps {
		jsonKeys(t, emitted["dump"], "dump", "--json", c)
		jsonKeys(t, emitted["dump"], append(append([]string{"dump", "--json"}, withSchemas...), c)...)
		jsonKeys(t, emitted["tables"], "tables", "--json", c)
		jsonKeys(t, emitted["infer"], "profile", "infer", "--json", c)
	}
	for _, c := range rpcCaps {
		for _, args := range [][]string{nil, rpcArgs(filepath.Base(c))} {
			jsonKeys(t, emitted["dump"], append(append([]string{"dump", "--json"}, args...), c)...)
			jsonKeys(t, emitted["tables"], append(append([]string{"tables", "--json"}, args...), c)...)
		}
	}
	// No fixture capture has a Response whose error text is not UTF-8
	// (TOML, the scenarios' language, cannot spell one): this capture,
	// generated here from a raw envelope, shows rpc.error_hex.
	jsonKeys(t, emitted["dump"], "dump", "--json", genRPCCapture(t, errorHexScenario))
	// Several captures: the two-ended fixture (the client's and the
	// server's capture of one session) shows seen, one_way_ns,
	// missing_in, the connections' host and capture, and clocks.
	twoEnds := []string{filepath.Join("../../fixtures/captures/two-ends", "client.pcapng"), filepath.Join("../../fixtures/captures/two-ends", "server.pcapng")}
	jsonKeys(t, emitted["dump"], append([]string{"dump", "--json"}, twoEnds...)...)
	jsonKeys(t, emitted["tables"], append([]string{"tables", "--json"}, twoEnds...)...)
	// Three hosts, A–B and B–C: C's clock is chained through B (via).
	jsonKeys(t, emitted["tables"], append([]string{"tables", "--json"}, chainCaptures(t)...)...)
	for _, hex := range []string{"89604020e0300d", "2c0100"} {
		jsonKeys(t, emitted["dump"], "bits", "--dir", "s2c", "--json", hex)
	}
	// The one exception: docs/stats.md documents `stats --json` before the
	// command exists (outputs.md fixes its keys); from the day it exists
	// its keys are checked like the others. export writes the dump
	// records (ndjson) or Parquet columns, which are no JSON keys.
	if _, ok := docs["stats"]; !ok {
		t.Errorf("docs/: no <!-- keys: stats --> table")
	}
	if hasCommand(newRoot(&streams{}), "stats") {
		emitted["stats"] = map[string]bool{}
		for _, c := range unturnedCaps {
			jsonKeys(t, emitted["stats"], append(append([]string{"stats", "--json"}, withSchemas...), c)...)
		}
		for _, c := range rpcCaps {
			jsonKeys(t, emitted["stats"], append(append([]string{"stats", "--json"}, rpcArgs(filepath.Base(c))...), c)...)
		}
	}
	for section, keys := range emitted {
		documented := docs[section]
		if len(documented) == 0 {
			t.Errorf("docs/: no <!-- keys: %s --> table", section)
			continue
		}
		var undocumented []string
		for k := range keys {
			p := strings.Split(k, "\x00")
			found := false
			for _, d := range documented {
				if d.matches(p) {
					found = true
					break
				}
			}
			if !found {
				undocumented = append(undocumented, strings.ReplaceAll(strings.ReplaceAll(k, "\x00[]", "[]"), "\x00", "."))
			}
		}
		sort.Strings(undocumented)
		for _, k := range undocumented {
			t.Errorf("%s: key %s is emitted but not documented in docs/ (a <!-- keys: %s --> table)", section, k, section)
		}
		for _, d := range documented {
			if d.optional {
				continue
			}
			found := false
			for k := range keys {
				if d.matches(strings.Split(k, "\x00")) && len(strings.Split(k, "\x00")) == len(d.segs) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s: key %s is documented in docs/ but no fixture emits it", section, d.path)
			}
		}
	}
}

// errorHexScenario is a ULinkRPC call answered by a raw Response whose
// 3-byte error text "a\xffb" is not UTF-8.
const errorHexScenario = `protocol = "ulinkrpc"
seed = 1
start = 2026-04-30T12:00:00Z

[ulinkrpc]
transport = "tcp"
serializer = "json"

[[connection]]
client = "10.0.0.2:50412"
server = "10.0.0.1:20000"

[[connection.action]]
do = "call"
service = 1
method = 1
args = { A = 1 }
answer = false

[[connection.action]]
do = "raw"
from = "server"
hex = "02000000010200000000010000000361ff62"
`

// genRPCCapture writes a ULinkRPC scenario and the capture `gen` makes of
// it into a temporary folder, and returns the capture's path.
func genRPCCapture(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	scen, out := filepath.Join(dir, "scenario.toml"), filepath.Join(dir, "capture.pcapng")
	if err := os.WriteFile(scen, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, nil, "gen", scen, "-o", out); code != exitOK {
		t.Fatalf("gen: exit %d: %s", code, errOut)
	}
	return out
}

// hasCommand says whether root has a subcommand named name.
func hasCommand(root *cobra.Command, name string) bool {
	for _, c := range root.Commands() {
		if c.Name() == name {
			return true
		}
	}
	return false
}

// mdRef is a Markdown file named in a text: "docs/json.md", "wire.md".
var mdRef = regexp.MustCompile(`[\w./-]*\.md\b`)

// mdLink is a Markdown link's target.
var mdLink = regexp.MustCompile(`\]\(([^)#\s]*)(#[^)\s]*)?\)`)

// checkRefs fails when text names a path outside the repository, or a
// Markdown file that is not in it (the specs the project was built from
// are not in a clone: the help points into docs/). base is the folder
// text's relative names are read from.
func checkRefs(t *testing.T, where, text, base string) {
	t.Helper()
	if strings.Contains(text, "../") || strings.Contains(text, "shared/") {
		t.Errorf("%s names a path outside the repository (../ or shared/)", where)
	}
	for _, ref := range mdRef.FindAllString(text, -1) {
		if _, err := os.Stat(filepath.Join(base, ref)); err == nil {
			continue
		}
		if _, err := os.Stat(filepath.Join("../..", ref)); err == nil {
			continue
		}
		t.Errorf("%s names %s, which is not a file of the repository (point into docs/)", where, ref)
	}
	for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if target == "" || strings.Contains(target, "://") {
			continue
		}
		if _, err := os.Stat(filepath.Join(base, target)); err != nil {
			t.Errorf("%s links to %s, which does not exist", where, target)
		}
	}
}

// TestDocsNoOutsidePaths: every help text, flag usage, the README and the
// docs point only into the repository (issue 30: they cited
// ../shared/spec/*.md, wire.md and outputs.md, which no clone has).
func TestDocsNoOutsidePaths(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		where := "usmnscope " + c.CommandPath() + " --help"
		checkRefs(t, where, c.Short+"\n"+c.Long+"\n"+c.Example, "../..")
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) { checkRefs(t, where+" --"+f.Name, f.Usage, "../..") })
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&streams{}))
	for _, f := range []string{"../../README.md", "../../SECURITY.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkRefs(t, filepath.Base(f), string(b), "../..")
	}
	docs, _ := filepath.Glob(filepath.Join(docsDir, "*.md"))
	for _, f := range docs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkRefs(t, "docs/"+filepath.Base(f), string(b), docsDir)
	}
}

// chainCaptures writes scenario.Chain's three captures (A–B and B–C
// sessions, A and C sharing none) and returns their paths, A first.
func chainCaptures(t *testing.T) []string {
	t.Helper()
	ch, err := (scenario.Chain{OffsetB: 1300 * time.Millisecond, DriftB: 30, OffsetC: -2100 * time.Millisecond, DriftC: -45}).Generate()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var paths []string
	for _, c := range []struct {
		name string
		ps   []scenario.Packet
	}{{"a.pcap", ch.A}, {"b.pcap", ch.B}, {"c.pcap", ch.C}} {
		var buf bytes.Buffer
		if err := scenario.WritePackets(&buf, scenario.PCAP, "", c.ps); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}
