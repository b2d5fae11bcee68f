package schema

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

// TestCuts cuts schema-decoded payloads at every bit before their end (a
// stronger form of "every shorter cut of a valid message must fail
// cleanly"): each cut gives exactly one error, "too short", naming the
// field whose bits the cut falls in (the innermost one), and every field
// that ends before the cut is decoded exactly as in the whole payload.
func TestCuts(t *testing.T) {
	l := mustParse(t, "all.toml", string(readFile(t, "testdata/all.toml"))).Listeners[0]
	payloads := []struct {
		name    string
		dir     dissect.Dir
		message string
		values  map[string]any
	}{
		{"All", dissect.S2C, "All", allValues()},
		{"Plain", dissect.C2S, "Plain", map[string]any{"hello": "hi there"}},
		{"Call", dissect.C2S, "Call", map[string]any{"method": "OnInstance", "instance": 5, "frame": 6, "tag": "abcd"}},
		{"Static", dissect.C2S, "Call", map[string]any{"method": "Static", "speed": 1.5}},
	}
	for _, p := range payloads {
		// Start the payload at bit 3 of the message, as after a header,
		// so that aligned reads do not line up with the payload's start.
		w := netpak.NewWriter()
		w.Bits(5, 3)
		if err := l.Encode(w, p.dir, p.message, p.values); err != nil {
			t.Fatal(err)
		}
		msg := w.Bytes()
		full := decodeAt(l, p.dir, msg, 3, len(msg)*8)
		if len(full.Findings) != 0 || full.End != w.Len() {
			t.Fatalf("%s: whole payload: findings %v, end %d; want none, %d", p.name, full.Findings, full.End, w.Len())
		}
		for cut := 3; cut < full.End; cut++ {
			res := decodeAt(l, p.dir, msg, 3, cut)
			// The innermost field holding bit cut: children follow their
			// parents, so the last such field in order.
			var want dissect.Field
			for _, f := range full.Fields {
				if f.Bit <= cut && cut < f.End() {
					want = f
				}
			}
			errs := errorsOf(res, dissect.Error)
			ctx := "schema " + l.Name()
			if full.Method != "" && cut >= methodEnd(full) {
				ctx += "." + full.Method
			} else if cut >= messageEnd(full) {
				ctx += "." + full.Message
			}
			prefix := ctx + ": " + strings.TrimPrefix(want.Name, "payload.") + ": need "
			if len(errs) != 1 || !strings.HasPrefix(errs[0], prefix) || !strings.HasSuffix(errs[0], ", have "+strconv.Itoa(cut-res.Findings[0].Bit)) {
				t.Errorf("%s cut at bit %d: errors %q; want one %q…", p.name, cut, errs, prefix)
				continue
			}
			// Decoding is the same up to the cut, so fields come in the same
			// order: each is the whole payload's field, or a container still
			// open at the cut, cut short. Every field ending by the cut is there.
			for i, f := range res.Fields {
				g := full.Fields[i]
				open := g.Bit <= cut && cut < g.End() && f.End() <= cut
				if f.Name != g.Name || f.Bit != g.Bit || !reflect.DeepEqual(f.Value, g.Value) || f.Bits != g.Bits && !open {
					t.Errorf("%s cut at bit %d: field %d = %+v; want %+v", p.name, cut, i, f, g)
				}
			}
			for j, g := range full.Fields {
				if g.End() <= cut && j >= len(res.Fields) {
					t.Errorf("%s cut at bit %d: field %+v, before the cut, is missing", p.name, cut, g)
				}
			}
		}
	}
}

// decodeAt decodes the payload that starts at bit from, with the message
// cut to end bits.
func decodeAt(l *Listener, dir dissect.Dir, msg []byte, from, end int) Result {
	r := netpak.NewReader(msg).Sub(0, end)
	r.Skip(from)
	return l.Decode(dir, r)
}

func messageEnd(res Result) int { return res.Fields[0].End() }

func methodEnd(res Result) int {
	for _, f := range res.Fields {
		if f.Name == "payload.method" {
			return f.End()
		}
	}
	return 1 << 30
}
