package main

import (
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/unturned"
)

const schemasDir = "../../fixtures/schemas"

// schemaArgs is --schema for every fixture schema.
func schemaArgs(t *testing.T) []string {
	t.Helper()
	fs, err := filepath.Glob(filepath.Join(schemasDir, "*.toml"))
	if err != nil || len(fs) == 0 {
		t.Fatalf("no fixture schemas in %s: %v", schemasDir, err)
	}
	var args []string
	for _, f := range fs {
		args = append(args, "--"+schemaFlag, f)
	}
	return args
}

// TestGoldenSchemas: the schema fixture decoded with the fixtures' schemas
// (issue 14): dump, -V and --json.
func TestGoldenSchemas(t *testing.T) {
	c := filepath.Join(capturesDir, "usmn-schemas.pcapng")
	for _, v := range []struct {
		suffix string
		args   []string
	}{
		{"schema.dump.txt", []string{"dump"}},
		{"schema.dump-V.txt", []string{"dump", "-V"}},
		{"schema.dump.ndjson", []string{"dump", "--json"}},
	} {
		t.Run(v.suffix, func(t *testing.T) {
			args := append(append(v.args, schemaArgs(t)...), c)
			code, out, errOut := run(t, nil, args...)
			if code != exitOK || errOut != "" {
				t.Fatalf("usmnscope %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
			}
			golden(t, "usmn-schemas."+v.suffix, out)
		})
	}
}

// TestSchemaFlagJSON: with the schemas every invoke with a schema has
// payload_message and payload.* fields after the header fields, their bits
// inside the payload; the hostile string is exact in JSON and escaped in
// the text outputs; without --schema the output is what it was.
func TestSchemaFlagJSON(t *testing.T) {
	c := filepath.Join(capturesDir, "usmn-schemas.pcapng")
	code, out, errOut := run(t, nil, append(append([]string{"dump", "--json"}, schemaArgs(t)...), c)...)
	if code != exitOK || errOut != "" {
		t.Fatalf("dump --json --schema: exit %d, stderr %q", code, errOut)
	}
	type rec struct {
		N              int    `json:"n"`
		Msg            string `json:"msg"`
		PayloadMessage string `json:"payload_message"`
		PayloadMethod  string `json:"payload_method"`
		PayloadBits    int    `json:"payload_bits"`
		Len            int    `json:"len"`
		Fields         []struct {
			Name  string `json:"name"`
			Bit   int    `json:"bit"`
			Bits  int    `json:"bits"`
			Value any    `json:"value"`
		} `json:"fields"`
	}
	const hostile = "\x1b[31mred\x1b[0m \u009b2J \u202eevil\x1b]0;title\x07"
	sawHostile, decoded := false, 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r rec
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("record %q: %v", line, err)
		}
		if r.PayloadMessage == "" && r.PayloadMethod == "" {
			continue
		}
		decoded++
		inPayload := false
		for _, f := range r.Fields {
			if !strings.HasPrefix(f.Name, "payload.") {
				if inPayload {
					t.Errorf("n=%d: header field %s after the payload fields", r.N, f.Name)
				}
				continue
			}
			inPayload = true
			if f.Bit < 0 || f.Bit+f.Bits > 8*r.Len {
				t.Errorf("n=%d: %s at %d+%d is outside the %d-byte message", r.N, f.Name, f.Bit, f.Bits, r.Len)
			}
			if f.Name == "payload.text" && f.Value == hostile {
				sawHostile = true
			}
		}
		if !inPayload {
			t.Errorf("n=%d: payload_message %q but no payload fields", r.N, r.PayloadMessage)
		}
	}
	if decoded < 20 || !sawHostile {
		t.Errorf("decoded %d payloads, hostile string exact: %v; want ≥ 20 and true", decoded, sawHostile)
	}
	for _, args := range [][]string{{"dump"}, {"dump", "-V"}} {
		_, text, _ := run(t, nil, append(append(args, schemaArgs(t)...), c)...)
		if strings.ContainsAny(text, "\x1b\x07\u009b\u202e") {
			t.Errorf("%v: a raw control or bidi character reached the text output", args)
		}
		if !strings.Contains(text, `\x1b[31mred`) {
			t.Errorf("%v: the hostile payload string is not shown escaped", args)
		}
	}
}

// TestSchemaCheck: schema check lists what each file defines; a bad file
// is an error naming the file, the line and the key, exit 1.
func TestSchemaCheck(t *testing.T) {
	code, out, errOut := run(t, nil, "schema", "check", filepath.Join(schemasDir, "chat.toml"), filepath.Join(schemasDir, "vanilla.toml"))
	if code != exitOK || errOut != "" {
		t.Fatalf("schema check: exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"chat.toml: ok", `listener "Sample.ChatListener, Sample" (versions 1)`, "message 0 Say(text string:11)", "vanilla s2c method 55 ReceiveChatEntry"} {
		if !strings.Contains(out, want) {
			t.Errorf("schema check output lacks %q:\n%s", want, out)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	src := "[[listener]]\ntype = \"X.Y\"\n[listener.server]\n[[listener.server.message]]\nvalue = 0\nname = \"M\"\nfields = [ { name = \"f\", type = \"uint:99\" } ]\n"
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = run(t, nil, "schema", "check", bad)
	if code != exitInput || !strings.Contains(errOut, bad+":7: listener[0].server.message[0].fields[0].type") {
		t.Errorf("schema check bad.toml: exit %d, stderr %q; want 1 and file:line:key", code, errOut)
	}
	// The same error stops any command given the file with --schema.
	code, _, errOut = run(t, nil, "dump", "--schema", bad, filepath.Join(capturesDir, "usmn-basic.pcapng"))
	if code != exitInput || !strings.Contains(errOut, bad+":7:") {
		t.Errorf("dump --schema bad.toml: exit %d, stderr %q; want 1 and file:line", code, errOut)
	}
}

// TestSchemaDir: schemas in $XDG_CONFIG_HOME/usmnscope/schemas apply to
// every command without --schema.
func TestSchemaDir(t *testing.T) {
	cfg := t.TempDir()
	dir := filepath.Join(cfg, "usmnscope", "schemas")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(schemasDir, "chat.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chat.toml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", cfg)
	_, out, _ := run(t, nil, "dump", "--filter", "payload_message == Say", filepath.Join(capturesDir, "usmn-schemas.pcapng"))
	if !strings.Contains(out, `Chat.Say "hi there"`) {
		t.Errorf("dump with the schemas directory: %q lacks Chat.Say", out)
	}
}

// TestBitsSchema: bits decodes the payload of a pasted invoke that carries
// its listener's definition with --schema.
func TestBitsSchema(t *testing.T) {
	dc, err := readCapture(&streams{in: strings.NewReader(""), out: io.Discard, err: io.Discard}, pipeline.Config{Profile: unturned.Default()}, filepath.Join(capturesDir, "usmn-schemas.pcapng"), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := dc.Detail(4)
	if m == nil || m.Listener == nil || m.Listener.Type == nil {
		t.Fatalf("message 4 is not the Chat definition: %+v", m)
	}
	r := struct{ Hex string }{hex.EncodeToString(m.Data)}
	code, text, errOut := run(t, nil, "bits", "--dir", "s2c", "--widened", "--schema", filepath.Join(schemasDir, "chat.toml"), r.Hex)
	if code != exitOK || errOut != "" {
		t.Fatalf("bits --schema: exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"payload.text", `"hello"`, "payload.color"} {
		if !strings.Contains(text, want) {
			t.Errorf("bits --schema output lacks %q:\n%s", want, text)
		}
	}
	_, plain, _ := run(t, nil, "bits", "--dir", "s2c", "--widened", r.Hex)
	if strings.Contains(plain, "payload.") {
		t.Errorf("bits without --schema decodes the payload:\n%s", plain)
	}
}
