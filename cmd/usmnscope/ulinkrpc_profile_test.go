package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeProfile writes a profile file and returns its path.
func writeProfile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestULinkRPCKeyDerivation: the fixture encrypted under the sha256 key
// derivation decodes with that derivation, given by the flag or by the
// profile's [ulinkrpc] table, and fails every HMAC ("the key is probably
// wrong") with the hkdf one; the flag overrides the profile.
func TestULinkRPCKeyDerivation(t *testing.T) {
	c := filepath.Join(rpcFixturesDir, "tcp-encrypted-sha256.pcapng")
	sha := writeProfile(t, "[ulinkrpc]\nkey = \""+rpcFixtureKey+"\"\nkey_derivation = \"sha256\"\n")
	hkdf := writeProfile(t, "[ulinkrpc]\nkey = \""+rpcFixtureKey+"\"\n")
	for _, tt := range []struct {
		name    string
		args    []string
		decodes bool
	}{
		{"flag sha256", []string{"--ulinkrpc-key", rpcFixtureKey, "--ulinkrpc-key-derivation", "sha256"}, true},
		{"flag hkdf", []string{"--ulinkrpc-key", rpcFixtureKey, "--ulinkrpc-key-derivation", "hkdf"}, false},
		{"flag default", []string{"--ulinkrpc-key", rpcFixtureKey}, false},
		{"profile sha256", []string{"--profile", sha}, true},
		{"profile hkdf", []string{"--profile", hkdf}, false},
		{"profile sha256, flag hkdf", []string{"--profile", sha, "--ulinkrpc-key-derivation", "hkdf"}, false},
		{"profile hkdf, flag sha256", []string{"--profile", hkdf, "--ulinkrpc-key-derivation", "sha256"}, true},
	} {
		args := append(append([]string{"dump"}, tt.args...), c)
		code, out, errOut := run(t, nil, args...)
		if code != exitOK || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", tt.name, code, errOut)
		}
		decrypted := strings.Count(out, "[decrypted]")
		failed := strings.Count(out, "HMAC failed: the key is probably wrong")
		if tt.decodes && (decrypted != 5 || failed != 0) || !tt.decodes && (decrypted != 0 || failed != 5) {
			t.Errorf("%s: %d records decrypted, %d HMAC failures; want decodes=%v over 5 records:\n%s", tt.name, decrypted, failed, tt.decodes, out)
		}
	}
	code, _, errOut := run(t, nil, "dump", "--ulinkrpc-key-derivation", "md5", c)
	if code != exitUsage || !strings.Contains(errOut, "hkdf or sha256") {
		t.Errorf("--ulinkrpc-key-derivation md5: exit %d, %q; want a usage error naming hkdf or sha256", code, errOut)
	}
}

// TestULinkRPCProfileTable: profile show prints the [ulinkrpc] table with
// the flags over it; a bad value is an input error naming the key; ports
// replace the default port (the mid-stream fixture, whose start is not
// captured, is ULinkRPC only by its port 20000); serializer forces the
// payload decoding.
func TestULinkRPCProfileTable(t *testing.T) {
	code, out, _ := run(t, nil, "profile", "show")
	if code != exitOK || !strings.Contains(out, "[ulinkrpc]\nports = [20000]\nkey = \"\"\nkey_derivation = \"hkdf\"\nserializer = \"auto\"\nws_path = \"/ws\"\n") {
		t.Errorf("profile show: exit %d, want the default [ulinkrpc] table:\n%s", code, out)
	}
	p := writeProfile(t, "[ulinkrpc]\nports = [20001, 20002]\nkey_derivation = \"sha256\"\nserializer = \"json\"\nws_path = \"/rpc\"\n")
	_, out, _ = run(t, nil, "--profile", p, "--ulinkrpc-key", rpcFixtureKey, "profile", "show")
	if !strings.Contains(out, "ports = [20001, 20002]\nkey = \""+rpcFixtureKey+"\"\nkey_derivation = \"sha256\"\nserializer = \"json\"\nws_path = \"/rpc\"\n") {
		t.Errorf("profile show with a [ulinkrpc] table and --ulinkrpc-key:\n%s", out)
	}
	for _, tt := range []struct{ toml, want string }{
		{"[ulinkrpc]\nports = [0]\n", "ulinkrpc.ports"},
		{"[ulinkrpc]\nports = []\n", "ulinkrpc.ports"},
		{"[ulinkrpc]\nports = [27016]\n", "ulinkrpc.ports: 27016 is transport_port"},
		{"[ulinkrpc]\nkey = \"!!\"\n", "ulinkrpc.key"},
		{"[ulinkrpc]\nkey_derivation = \"md5\"\n", "ulinkrpc.key_derivation"},
		{"[ulinkrpc]\nserializer = \"xml\"\n", "ulinkrpc.serializer"},
		{"[ulinkrpc]\nws_path = \"ws\"\n", "ulinkrpc.ws_path"},
	} {
		code, _, errOut := run(t, nil, "--profile", writeProfile(t, tt.toml), "profile", "show")
		if code == exitOK || !strings.Contains(errOut, tt.want) {
			t.Errorf("profile %q: exit %d, stderr %q; want an error naming %s", tt.toml, code, errOut, tt.want)
		}
	}
	mid := filepath.Join(rpcFixturesDir, "tcp-midstream.pcapng")
	_, out, _ = run(t, nil, "dump", mid)
	if !strings.Contains(out, "Request #") {
		t.Fatalf("the mid-stream fixture on port 20000 is not decoded by default:\n%s", out)
	}
	_, out, _ = run(t, nil, "--profile", writeProfile(t, "[ulinkrpc]\nports = [20001]\n"), "dump", mid)
	if strings.Contains(out, "Request #") {
		t.Errorf("ports = [20001] still decodes port 20000 by port:\n%s", out)
	}
	// tcp-json's payloads are JSON: forced to MemoryPack they are not.
	c := filepath.Join(rpcFixturesDir, "tcp-json.pcapng")
	_, auto, _ := run(t, nil, "dump", "--json", c)
	_, forced, _ := run(t, nil, "--profile", writeProfile(t, "[ulinkrpc]\nserializer = \"memorypack\"\n"), "dump", "--json", c)
	if !strings.Contains(auto, `"encoding":"json"`) || strings.Contains(forced, `"encoding":"json"`) {
		t.Errorf("serializer = \"memorypack\": JSON payloads still read as JSON (auto has json: %v, forced has json: %v)",
			strings.Contains(auto, `"encoding":"json"`), strings.Contains(forced, `"encoding":"json"`))
	}
}
