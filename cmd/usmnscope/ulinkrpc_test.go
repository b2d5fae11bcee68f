package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	rpcFixturesDir = "../../fixtures/ulinkrpc"
	rpcFixtureKey  = "dXNtbnNjb3BlIGZpeHR1cmUga2V5" // fixtures/ulinkrpc/README.md
)

// rpcArgs are the ULinkRPC flags a fixture capture is read with: the
// fixture contracts, and the key for the encrypted one.
func rpcArgs(name string) []string {
	args := []string{"--contracts", filepath.Join(rpcFixturesDir, "contracts")}
	if strings.Contains(name, "encrypted") {
		args = append(args, "--ulinkrpc-key", rpcFixtureKey)
	}
	if strings.Contains(name, "sha256") {
		args = append(args, "--ulinkrpc-key-derivation", "sha256")
	}
	return args
}

func rpcCaptures(t *testing.T) []string {
	t.Helper()
	caps, err := filepath.Glob(filepath.Join(rpcFixturesDir, "*.pcapng"))
	if err != nil || len(caps) == 0 {
		t.Skipf("no ULinkRPC fixture captures in %s", rpcFixturesDir)
	}
	return caps
}

// TestGoldenULinkRPC runs dump, dump -V (the layer tree, rpc.TreeText),
// dump --json, tables and tables --json over
// every ULinkRPC fixture capture (fixtures/golden/ulinkrpc).
func TestGoldenULinkRPC(t *testing.T) {
	for _, c := range rpcCaptures(t) {
		name := strings.TrimSuffix(filepath.Base(c), ".pcapng")
		for _, v := range []struct {
			suffix string
			args   []string
		}{
			{"dump.txt", []string{"dump"}},
			{"dump-V.txt", []string{"dump", "-V"}},
			{"dump.ndjson", []string{"dump", "--json"}},
			{"tables.txt", []string{"tables"}},
			{"tables.json", []string{"tables", "--json"}},
		} {
			t.Run(name+"/"+v.suffix, func(t *testing.T) {
				args := append(append(append([]string(nil), v.args...), rpcArgs(name)...), c)
				code, out, errOut := run(t, nil, args...)
				if code != exitOK || errOut != "" {
					t.Fatalf("usmnscope %s: exit %d, stderr %q; want 0 and nothing", strings.Join(args, " "), code, errOut)
				}
				golden(t, filepath.Join("ulinkrpc", name+"."+v.suffix), out)
			})
		}
	}
}

// TestULinkRPCDumpJSONIsRPCs: for every fixture (TCP, WebSocket, KCP), `dump
// --json` prints exactly the records package rpc's own goldens hold for the
// capture (fixtures/ulinkrpc/golden), numbered capture-wide from 1; without
// the key the encrypted one matches the .nokey golden.
func TestULinkRPCDumpJSONIsRPCs(t *testing.T) {
	for _, c := range rpcCaptures(t) {
		name := strings.TrimSuffix(filepath.Base(c), ".pcapng")
		variants := map[string][]string{name: rpcArgs(name)}
		if strings.Contains(name, "encrypted") {
			variants[name+".nokey"] = rpcArgs("")
			variants[name+".wrongkey"] = append(rpcArgs(""), "--ulinkrpc-key", "bm90IHRoZSBrZXk=") // "not the key"
		}
		for g, flags := range variants {
			want, err := os.ReadFile(filepath.Join(rpcFixturesDir, "golden", g+".dump.ndjson"))
			if err != nil {
				t.Fatal(err)
			}
			code, out, errOut := run(t, nil, append(append([]string{"dump", "--json"}, flags...), c)...)
			// rpc's records name no host or capture (dump's do: outputs.md "Several captures").
			if out = withoutOrigin(out); code != exitOK || errOut != "" || out != string(want) {
				t.Errorf("dump --json %s: exit %d, stderr %q, same records as rpc's golden %s: %v", name, code, errOut, g, out == string(want))
			}
		}
	}
}

// TestULinkRPCFlags: a bad key or contracts folder is refused; --decode-as
// takes ulinkrpc and turns the port off with none; schema import prints the
// contracts as schema TOML.
func TestULinkRPCFlags(t *testing.T) {
	c := filepath.Join(rpcFixturesDir, "tcp-json.pcapng")
	if code, _, errOut := run(t, nil, "dump", "--ulinkrpc-key", "!!", c); code != exitUsage || !strings.Contains(errOut, "base64") {
		t.Errorf("bad key: exit %d, %q", code, errOut)
	}
	if code, _, errOut := run(t, nil, "dump", "--contracts", "/nonexistent", c); code == exitOK || !strings.Contains(errOut, "not a folder") {
		t.Errorf("bad contracts: exit %d, %q", code, errOut)
	}
	_, out, _ := run(t, nil, "dump", "--decode-as", "20000=none", c)
	if strings.Contains(out, "Request #1") || !strings.Contains(out, "not decoded") {
		t.Errorf("--decode-as 20000=none still decodes ULinkRPC:\n%s", out)
	}
	_, out, _ = run(t, nil, "dump", "--decode-as", "20000=ulinkrpc", c)
	if !strings.Contains(out, "Request #1 (1).(1)") {
		t.Errorf("--decode-as 20000=ulinkrpc without contracts: want unnamed requests:\n%s", out)
	}
	code, out, errOut := run(t, nil, "schema", "import", "--contracts", filepath.Join(rpcFixturesDir, "contracts"))
	if code != exitOK || !strings.Contains(out, `name = "IPlayerService"`) || !strings.Contains(out, `name = "LoginAsync"`) {
		t.Errorf("schema import: exit %d, stderr %q, out:\n%s", code, errOut, out)
	}
}

// TestGenULinkRPC: gen recognises a ULinkRPC scenario and writes the
// committed fixture capture byte for byte.
func TestGenULinkRPC(t *testing.T) {
	for _, name := range []string{"tcp-json", "kcp-memorypack"} {
		out := filepath.Join(t.TempDir(), name+".pcapng")
		code, _, errOut := run(t, nil, "gen", filepath.Join(rpcFixturesDir, name+".toml"), "-o", out)
		got, _ := os.ReadFile(out)
		want, err := os.ReadFile(filepath.Join(rpcFixturesDir, name+".pcapng"))
		if code != exitOK || err != nil || string(got) != string(want) {
			t.Errorf("gen %s: exit %d, stderr %q, same as the fixture: %v", name, code, errOut, string(got) == string(want))
		}
	}
}
