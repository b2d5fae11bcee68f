package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigFile: the config file's defaults apply to flags not given
// (its contracts name the ULinkRPC methods), a flag given wins, a bad file
// is an error that names it, and config show prints its path and keys (the
// default columns when it sets none).
func TestConfigFile(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	path := filepath.Join(cfg, "usmnscope", "config.toml")
	capture := filepath.Join(rpcFixturesDir, "tcp-json.pcapng")

	_, out, _ := run(t, nil, "config", "show")
	if !strings.HasPrefix(out, "# "+path+"\n") || !strings.Contains(out, "ulinkrpc = [\"status:12\", \"latency:10\"]") {
		t.Errorf("config show without a file:\n%s", out)
	}
	_, plain, _ := run(t, nil, "dump", capture)
	if strings.Contains(plain, "IPlayerService.LoginAsync") {
		t.Fatalf("dump without contracts names the method:\n%s", plain)
	}
	contracts, _ := filepath.Abs(filepath.Join(rpcFixturesDir, "contracts"))
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("contracts = \""+contracts+"\"\n[columns]\nall = [\"latency:9\"]\n"), 0o644)
	if _, out, errOut := run(t, nil, "dump", capture); !strings.Contains(out, "IPlayerService.LoginAsync") {
		t.Errorf("dump with contracts in the config file does not name LoginAsync (stderr %q):\n%s", errOut, out)
	}
	if code, _, errOut := run(t, nil, "dump", "--contracts", filepath.Join(t.TempDir(), "none"), capture); code == exitOK {
		t.Errorf("dump --contracts MISSING with a config file: exit 0 (%s); the flag must win", errOut)
	}
	_, out, _ = run(t, nil, "config", "show")
	if !strings.Contains(out, "contracts = ") || !strings.Contains(out, "all = [\"latency:9\"]") {
		t.Errorf("config show:\n%s", out)
	}
	// [keys] and copy_command (the TUI's): a clash stops open and live,
	// naming the file and the binding's line; dump does not read them.
	os.WriteFile(path, []byte("copy_command = \"wl-copy --type text/plain\"\n[keys]\nmark = \"*\"\ncopy = \"j\"\n"), 0o644)
	if code, _, errOut := run(t, nil, "open", capture); code == exitOK || !strings.Contains(errOut, path+":4: keys.copy: \"j\" is also") {
		t.Errorf("open with copy = \"j\": exit %d, stderr %q; want the clash named at %s:4", code, errOut, path)
	}
	if code, _, errOut := run(t, nil, "dump", capture); code != exitOK {
		t.Errorf("dump with a [keys] clash: exit %d (%s); dump does not use the keys", code, errOut)
	}
	if code, _, errOut := run(t, nil, "config", "show"); code == exitOK || !strings.Contains(errOut, path+":4: keys.copy") {
		t.Errorf("config show with a [keys] clash: exit %d, stderr %q; want the clash named", code, errOut)
	}
	os.WriteFile(path, []byte("copy_command = \"wl-copy --type text/plain\"\n[keys]\nmark = \"*\"\n"), 0o644)
	if _, out, errOut := run(t, nil, "config", "show"); !strings.Contains(out, "copy_command = \"wl-copy --type text/plain\"") || !strings.Contains(out, "[keys]\n  mark = \"*\"") {
		t.Errorf("config show (stderr %q):\n%s", errOut, out)
	}
	os.WriteFile(path, []byte("colour = \"red\"\n"), 0o644)
	if code, _, errOut := run(t, nil, "dump", capture); code == exitOK || !strings.Contains(errOut, `unknown key "colour"`) {
		t.Errorf("dump with a bad config file: exit %d, stderr %q; want an error naming the key", code, errOut)
	}
}
