package rpc

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name, writing name.got on a mismatch
// (style.md) and the file itself with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		os.WriteFile(path+".got", got, 0o644)
		t.Errorf("%s differs from the golden file; see %s.got", name, path)
	}
}

// dumpAll renders a session as the three outputs: dump lines, dump --json
// lines and the tables --json connection entry.
func dumpAll(s *Session) (txt, ndjson, tables []byte) {
	for _, r := range s.Records() {
		txt = fmt.Appendf(txt, "%d %s %s\n", r.N, r.Dir, Line(r))
		ndjson = append(AppendJSON(ndjson, r), '\n')
	}
	var buf bytes.Buffer
	json.Indent(&buf, AppendConnJSON(nil, s), "", "  ")
	buf.WriteByte('\n')
	return txt, ndjson, buf.Bytes()
}

func TestGolden(t *testing.T) {
	keys := ulinkrpc.DeriveKeys([]byte("fixture master key"), ulinkrpc.HKDF)
	mp := append(conversation()[:0:0], conversation()...)
	mp = append(mp,
		step{dissect.C2S, 3000, ulinkrpc.EncodeRequest(4, 1, 1, loginMP("bob", 3))},
		step{dissect.S2C, 3180, ulinkrpc.EncodeResponse(4, ulinkrpc.StatusOk, ulinkrpc.MPEncodeObject(true, ulinkrpc.MPInt32(0), ulinkrpc.MPString("t")), "")},
		step{dissect.S2C, 3300, ulinkrpc.EncodeResponse(4, ulinkrpc.StatusOk, nil, "")},
		step{dissect.C2S, 3400, append(ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 7), 0)}, // trailing byte
		step{dissect.C2S, 3500, []byte{9, 1, 2}},                                                // unknown type
	)
	for _, tc := range []struct {
		name string
		cfg  Config
		opt  ulinkrpc.TransformOptions
	}{
		{"conversation", Config{Contracts: contracts(t)}, ulinkrpc.TransformOptions{}},
		{"conversation-nonames", Config{}, ulinkrpc.TransformOptions{}},
		{"conversation-encrypted", Config{Contracts: contracts(t), Transform: ulinkrpc.TransformConfig{Keys: &keys}}, ulinkrpc.TransformOptions{Keys: &keys, Compress: true, Threshold: 16}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			steps := mp
			if tc.opt.Keys != nil || tc.opt.Compress {
				steps = nil
				for _, st := range mp {
					st.env = ulinkrpc.ApplyTransform(st.env, tc.opt)
					steps = append(steps, st)
				}
			}
			s := New(testConn, tc.cfg)
			play(s, steps, 0)
			txt, nd, tb := dumpAll(s)
			golden(t, tc.name+".dump.txt", txt)
			golden(t, tc.name+".dump.ndjson", nd)
			golden(t, tc.name+".tables.json", tb)
		})
	}
}
