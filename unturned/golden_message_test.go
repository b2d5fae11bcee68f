package unturned

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// TestGoldenMessages writes a text dump of every message form of the table
// tests (cases) under every profile and width: the fields with their bit
// spans and values, the findings and the summary. It is a reviewable record
// of the decoder's output (style.md: decoders as a text dump); the values
// themselves are checked against the spec by TestEncodeDecode and
// TestDecodeSpecVectors. Refresh with `go test ./decode -run Golden -update`.

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func TestGoldenMessages(t *testing.T) {
	var b bytes.Buffer
	for _, p := range profiles() {
		for _, widened := range []bool{false, true} {
			for _, c := range cases(p, widened) {
				d, spans := decodeAll(p, c.dir, c.st, c.data)
				head := c.data
				if len(head) > 16 {
					head = head[:16]
				}
				fmt.Fprintf(&b, "== %s %s widened=%v %s: %s, %d bytes [% x]\n", p.Name, p.Game, widened, c.dir, c.name, len(c.data), head)
				fmt.Fprintf(&b, "   %s enum=%d/%d widened=%v summary: %s\n", d.Kind, d.Enum.Value, d.Enum.Bits, d.Enum.Widened, d.Summary())
				for _, s := range spans {
					v := s.Value
					if bs, ok := v.([]byte); ok {
						v = fmt.Sprintf("% x", bs)
					}
					fmt.Fprintf(&b, "   %5d +%4d %s = %v\n", s.Bit, s.Bits, s.Name, v)
				}
				for _, f := range d.Findings {
					fmt.Fprintf(&b, "   ! %s %s @%d: %s\n", f.Severity, f.Group, f.Bit, termsafe.Escape(f.Text))
				}
			}
		}
	}
	path := filepath.Join("testdata", "messages.golden")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		_ = os.WriteFile(path+".got", b.Bytes(), 0o644)
		t.Errorf("decoded messages differ from %s; see %s.got", path, path)
	}
}
