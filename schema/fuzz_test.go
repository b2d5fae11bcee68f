package schema

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

// seedSchemas are the schema files the fuzzers start from: schema.md's
// examples, every field type, and the fixtures' sample listeners.
func seedSchemas(t testing.TB) [][]byte {
	paths, _ := filepath.Glob("../fixtures/schemas/*.toml")
	paths = append(paths, "testdata/spec.toml", "testdata/all.toml")
	var out [][]byte
	for _, p := range paths {
		out = append(out, readFile(t, p))
	}
	return out
}

// FuzzParse: the parser never panics; it returns a File or an ErrorList
// whose every entry names the file and a line within it (or 0), and what
// it accepts lists its definitions, joins a Set and decodes without
// panicking. The line locator is fuzzed on the raw input too, since it
// must survive any text.
func FuzzParse(f *testing.F) {
	for _, s := range seedSchemas(f) {
		f.Add(s)
	}
	f.Add([]byte(listenerSrc(`{ name = "l", type = "list:3", fields = [ { name = "o", type = "optional", item = { type = "enum:2", values = { 1 = "B" } } } ] }`)))
	f.Add([]byte("[[listener]]\ntype = \"A\"\n[listener.server]\nenum_bits = 40"))
	f.Add([]byte("a = \"\"\"\nx\"\"\"\"\n[[b]]\n'c.d' = [[1], {e = 'f'}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		locate(string(data))
		file, err := Parse("fuzz.toml", data)
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("Parse error %T %v; want an ErrorList", err, err)
			}
			lines := strings.Count(string(data), "\n") + 2
			for _, e := range list {
				if e.File != "fuzz.toml" || e.Line < 0 || e.Line > lines {
					t.Fatalf("Parse error %q: line %d of %d lines", e, e.Line, lines)
				}
			}
			return
		}
		file.Defines()
		set, _ := NewSet(file)
		payload := []byte{0xa5, 0x5a, 0xff, 0x00, 0x13, 0x37, 0xc0, 0xde}
		for _, l := range file.Listeners {
			for _, dir := range []dissect.Dir{dissect.C2S, dissect.S2C} {
				checkResult(t, l.Decode(dir, netpak.NewReader(payload)), 0, len(payload)*8)
				set.DecodeListener(l.Type, 1, dir, netpak.NewReader(payload))
			}
		}
	})
}

// FuzzDecode: arbitrary (schema, payload) pairs never panic, stay within
// the payload's bits and the work bounds, and give spans in wire order.
// skip starts the payload at a bit other than 0, as after a header.
func FuzzDecode(f *testing.F) {
	all := string(readFile(f, "testdata/all.toml"))
	l := mustParse(f, "all.toml", all).Listeners[0]
	w := netpak.NewWriter()
	if err := l.Encode(w, dissect.S2C, "All", allValues()); err != nil {
		f.Fatal(err)
	}
	f.Add(all, w.Bytes(), uint8(0))
	f.Add(all, w.Bytes()[:len(w.Bytes())/2], uint8(0))
	f.Add(all, []byte{0x03, 0xff, 0xff}, uint8(5))
	for _, s := range seedSchemas(f) {
		f.Add(string(s), []byte{0x08, 0x00, 0x68, 0x69, 0x00, 0xff, 0x10}, uint8(3))
	}
	f.Add(listenerSrc(`{ name = "l", type = "list:4294967295", item = { type = "struct", fields = [] } }`), []byte{0xff, 0xff, 0xff, 0xff}, uint8(0))
	f.Fuzz(func(t *testing.T, src string, payload []byte, skip uint8) {
		file, err := Parse("fuzz.toml", []byte(src))
		if err != nil {
			return
		}
		from := min(int(skip), len(payload)*8)
		end := len(payload) * 8
		at := func() *netpak.Reader {
			r := netpak.NewReader(payload)
			r.Skip(from)
			return r
		}
		for _, l := range file.Listeners {
			for _, dir := range []dissect.Dir{dissect.C2S, dissect.S2C} {
				checkResult(t, l.Decode(dir, at()), from, end)
			}
		}
		for _, m := range append(file.Vanilla.ClientMethods, file.Vanilla.ServerMethods...) {
			checkResult(t, m.Decode(at(), 0), 0, end)
		}
	})
}

// checkResult checks what every decode must give: spans inside the
// payload, in wire order, within MaxFields; End inside the payload.
func checkResult(t *testing.T, res Result, from, end int) {
	t.Helper()
	if len(res.Fields) > MaxFields+1 {
		t.Fatalf("%d fields; want at most %d", len(res.Fields), MaxFields)
	}
	if res.End < from || res.End > end {
		t.Fatalf("End = %d; want within %d…%d", res.End, from, end)
	}
	last := from
	for _, f := range res.Fields {
		if f.Bit < last || f.Bits < 0 || f.End() > end || !strings.HasPrefix(f.Name, "payload.") {
			t.Fatalf("field %+v: want a payload field in %d…%d at or after bit %d", f, from, end, last)
		}
		last = f.Bit
	}
	errs := 0
	for _, f := range res.Findings {
		if f.Severity == dissect.Error && strings.Contains(f.Text, "need ") {
			errs++
		}
	}
	if errs > 1 {
		t.Fatalf("%d too-short errors; want at most one: %v", errs, res.Findings)
	}
}
