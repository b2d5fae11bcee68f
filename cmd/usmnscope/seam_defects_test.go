package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenListsWhatDumpLists (issue 23): open decodes every ULinkRPC
// fixture as dump does, KCP on a port no option names included
// (kcp-otherport: open built its capture without the KCP probe and showed
// none of its messages): open's index holds as many messages as dump
// prints, each on the connection and direction dump prints it on.
func TestOpenListsWhatDumpLists(t *testing.T) {
	for _, c := range rpcCaptures(t) {
		name := strings.TrimSuffix(filepath.Base(c), ".pcapng")
		t.Run(name, func(t *testing.T) {
			args := append(append([]string{"open"}, rpcArgs(name)...), c)
			o, err := parseOptions(t, newCmdOpen, strings.Join(args, " "))
			if err != nil || o == nil {
				t.Fatalf("open %s: %v", name, err)
			}
			lf, _, err := openFeed(o)
			if err != nil {
				t.Fatal(err)
			}
			defer lf.Source.Close()
			if err := lf.Feed(nil); err != nil {
				t.Fatal(err)
			}
			dargs := append(append([]string{"dump", "--json"}, rpcArgs(name)...), c)
			code, out, errOut := run(t, nil, dargs...)
			if code != exitOK {
				t.Fatalf("dump --json: exit %d, %s", code, errOut)
			}
			var recs []struct {
				N         int
				Conn, Dir string
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var r struct {
					N         int
					Conn, Dir string
				}
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatalf("%v: %s", err, line)
				}
				recs = append(recs, r)
			}
			if len(recs) == 0 {
				t.Fatalf("dump lists no message of %s: the test compares nothing", name)
			}
			if lf.Index.Len() != len(recs) {
				t.Fatalf("open %s lists %d messages; dump lists %d", name, lf.Index.Len(), len(recs))
			}
			for _, r := range recs {
				m := lf.Index.Message(r.N)
				if m == nil || m.Conn.String() != r.Conn || m.Dir.String() != r.Dir {
					t.Errorf("open %s: message %d is %v; dump lists it on %s %s", name, r.N, m, r.Conn, r.Dir)
				}
			}
		})
	}
}

// TestSchemaNamesAsContracts (issue 23): a schema file made by `schema
// import --contracts DIR` names the ULinkRPC services, methods and members
// exactly as --contracts DIR does, in dump, dump -V, dump --json, tables
// and tables --json over every ULinkRPC fixture (the [[ulinkrpc.service]]
// tables of a --schema file were parsed and then ignored); both given,
// --contracts wins and a note says so.
func TestSchemaNamesAsContracts(t *testing.T) {
	dir := filepath.Join(rpcFixturesDir, "contracts")
	code, toml, errOut := run(t, nil, "schema", "import", "--contracts", dir)
	if code != exitOK {
		t.Fatalf("schema import: exit %d, %s", code, errOut)
	}
	file := filepath.Join(t.TempDir(), "contracts.toml")
	if err := os.WriteFile(file, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no schema but the file
	named := 0
	for _, c := range rpcCaptures(t) {
		name := strings.TrimSuffix(filepath.Base(c), ".pcapng")
		key := rpcArgs(name)[2:] // the key flags, without --contracts
		for _, cmd := range [][]string{{"dump"}, {"dump", "-V"}, {"dump", "--json"}, {"tables"}, {"tables", "--json"}} {
			args := func(extra ...string) []string {
				return append(append(append(append([]string{}, cmd...), key...), extra...), c)
			}
			_, want, _ := run(t, nil, args("--contracts", dir)...)
			code, got, errOut := run(t, nil, args("--schema", file)...)
			if code != exitOK || errOut != "" {
				t.Errorf("%s --schema %s: exit %d, stderr %q", strings.Join(cmd, " "), name, code, errOut)
			}
			if got != want {
				t.Errorf("%s --schema (imported) on %s differs from --contracts:\n%s\nwant:\n%s", strings.Join(cmd, " "), name, got, want)
			}
			if strings.Contains(want, "LoginAsync") {
				named++
			}
			_, both, errOut := run(t, nil, args("--contracts", dir, "--schema", file)...)
			if both != want || !strings.Contains(errOut, "note: --contracts") {
				t.Errorf("%s --contracts --schema on %s: stderr %q, stdout equal to --contracts' %v; want the note and equal", strings.Join(cmd, " "), name, errOut, both == want)
			}
		}
	}
	if named == 0 {
		t.Fatal("no output names LoginAsync: the test compares nothing")
	}
}
