package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/unturned"
)

// TestProfileInfer (issue 13 point 5): profile infer prints a TOML profile
// that parses, holds the fixture profile's value for every key it names
// and a comment with confidence and evidence per key; --json names the
// same keys; decoding with the printed profile takes the capture hint away.
func TestProfileInfer(t *testing.T) {
	for _, tt := range []struct{ capture, profile string }{
		{"profile-custom.pcapng", "custom.toml"},
		{"profile-wire61.pcapng", "wire61.toml"},
	} {
		t.Run(tt.capture, func(t *testing.T) {
			c := fixture(t, tt.capture)
			raw, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "profiles", tt.profile))
			if err != nil {
				t.Fatal(err)
			}
			truth, err := unturned.ParseProfile(tt.profile, raw)
			if err != nil {
				t.Fatal(err)
			}
			code, out, errOut := run(t, nil, "profile", "infer", c)
			if code != exitOK || errOut != "" {
				t.Fatalf("profile infer: exit %d, stderr %q", code, errOut)
			}
			got, err := unturned.ParseProfile("inferred", []byte(out))
			if err != nil {
				t.Fatalf("the printed profile does not parse: %v\n%s", err, out)
			}
			var keys []string
			for _, line := range strings.Split(out, "\n") {
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				key, rest, _ := strings.Cut(line, " = ")
				keys = append(keys, key)
				if !strings.Contains(rest, "# confidence ") {
					t.Errorf("%s: no confidence comment: %q", key, line)
				}
			}
			if len(keys) < 10 {
				t.Errorf("claimed %d keys (%v); the fixture shows at least 10", len(keys), keys)
			}
			// Every key printed holds the fixture's value: compare the
			// two profiles with the unclaimed keys taken from the truth.
			want := *truth
			gotV := *got
			gotV.Name, want.Name = "", ""
			for _, k := range []string{"client_methods", "server_methods", "type_name_bit_count", "id_bit_count_bit_count", "query_port"} {
				if !slices.Contains(keys, k) {
					copyKey(&gotV, &want, k)
				}
			}
			for _, k := range keys {
				if !slices.Contains([]string{"game", "transport_port", "extra_bits", "server_invoke_listener", "server_negotiate", "client_invoke_listener", "client_negotiate",
					"id_bit_count_bit_count", "type_name_bit_count", "negotiate_mode_bit_count", "mode_tell_client_missing_listener", "mode_tell_client_listener_id",
					"mode_tell_server_missing_listener", "mode_request_server_listener_id", "marker_magic"}, k) {
					t.Errorf("unexpected key %s", k)
				}
			}
			if gotV != want {
				t.Errorf("inferred profile\n%+v\nwant (fixture's, for the keys printed)\n%+v", gotV, want)
			}

			code, js, _ := run(t, nil, "profile", "infer", "--json", c)
			var doc struct {
				Profile  map[string]any `json:"profile"`
				Evidence map[string]struct {
					Confidence float64 `json:"confidence"`
					Text       string  `json:"text"`
				} `json:"evidence"`
			}
			if err := json.Unmarshal([]byte(js), &doc); code != exitOK || err != nil {
				t.Fatalf("profile infer --json: exit %d, %v\n%s", code, err, js)
			}
			if len(doc.Profile) != len(keys) || len(doc.Evidence) != len(keys) {
				t.Errorf("--json has %d profile keys and %d evidence entries; the TOML has %d", len(doc.Profile), len(doc.Evidence), len(keys))
			}
			for k, e := range doc.Evidence {
				if e.Confidence <= 0 || e.Confidence > 1 || e.Text == "" {
					t.Errorf("evidence %s = %+v; want a confidence in (0, 1] and a text", k, e)
				}
			}

			// The hint: the default profile decodes the capture badly and
			// says which command finds a better one; the inferred one
			// does not need it.
			_, dump, _ := run(t, nil, "dump", c)
			if !strings.Contains(dump, "# capture: warn protocol: profile default decodes") || !strings.Contains(dump, "usmnscope profile infer "+c) {
				t.Errorf("dump under the default profile: no profile hint\n%s", dump)
			}
			pf := filepath.Join(t.TempDir(), "inferred.toml")
			if err := os.WriteFile(pf, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			_, dump, _ = run(t, nil, "--profile", pf, "dump", c)
			if strings.Contains(dump, "profile infer") || strings.Contains(dump, "error") {
				t.Errorf("dump under the inferred profile still has a hint or errors\n%s", dump)
			}
		})
	}
}

// TestProfileHintQuiet: a capture the profile decodes well gets no hint.
func TestProfileHintQuiet(t *testing.T) {
	for _, name := range []string{"usmn-basic.pcapng", "vanilla.pcapng", "hostile.pcapng", "transport-mess.pcapng"} {
		_, out, _ := run(t, nil, "dump", fixture(t, name))
		if strings.Contains(out, "profile infer") {
			t.Errorf("dump %s: a profile hint\n%s", name, out)
		}
	}
}

// copyKey sets key of dst from src (the keys a capture may leave out).
func copyKey(dst, src *unturned.Profile, key string) {
	switch key {
	case "client_methods":
		dst.ClientMethods = src.ClientMethods
	case "server_methods":
		dst.ServerMethods = src.ServerMethods
	case "type_name_bit_count":
		dst.TypeNameBitCount = src.TypeNameBitCount
	case "id_bit_count_bit_count":
		dst.IDBitCountBitCount = src.IDBitCountBitCount
	case "query_port":
		dst.QueryPort = src.QueryPort
	}
}
