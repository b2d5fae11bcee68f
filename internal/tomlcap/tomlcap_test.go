package tomlcap

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// Shapes of issue 29: each past one bound, with the line Check names.
func TestCheckShapes(t *testing.T) {
	nested := "name = \"x\"\nv = " + strings.Repeat("{a = ", 12000) + "1" + strings.Repeat("}", 12000) + "\n"
	arrays := "v = " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"
	dotted := "# a comment\n\n" + strings.Repeat("a.", 200000) + "b = 1\n"
	header := "[" + strings.Repeat("k", 2000) + "]\n"
	quoted := "x = 1\n\"" + strings.Repeat("q", 2000) + "\" = 2\n"
	inline := "t = { " + strings.Repeat("z", 1500) + " = 1 }\n"
	for _, c := range []struct {
		name, src string
		line      int
		msg       string
	}{
		{"nested inline tables", nested, 2, "nested deeper than 64"},
		{"nested arrays", arrays, 1, "nested deeper than 64"},
		{"400 KB dotted key", dotted, 3, "key longer than 1024 bytes"},
		{"table header key", header, 1, "key longer than 1024 bytes"},
		{"quoted key", quoted, 2, "key longer than 1024 bytes"},
		{"key in an inline table", inline, 1, "key longer than 1024 bytes"},
		{"invalid UTF-8", "a = 1\n# ok\nb = \"\xff\xfe\"\n", 3, "invalid UTF-8 (byte 0xff at byte offset 16)"},
		{"too large", strings.Repeat("# 123456789\n", 400000), 0, "larger than 4194304 bytes"},
	} {
		err := Check("f.toml", []byte(c.src), Default)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Check(%s) = %v; want an *Error", c.name, err)
			continue
		}
		if e.File != "f.toml" || e.Line != c.line || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("Check(%s) = %q (line %d); want line %d, %q", c.name, err, e.Line, c.line, c.msg)
		}
	}
}

// Nesting and keys within the bounds, strings holding brackets, quotes and
// '#', and multi-line strings are no error, and lines are counted through
// them.
func TestCheckAccepts(t *testing.T) {
	src := `# brackets in strings do not nest: "[[[[{{{{"
a = "[[[[{{{{ \" ]]]]"
b = '[[[[{{{{'
c = """
[[[[{{{{ ""
"""
d = '''
{{{{'''
"quoted.key" = 1
x.y."z w" = { p = [1, [2, [3]]], q = { r = "s" } }
[[t.u]]
v = [
  { w = 1 },
  { w = 2 },
]
`
	if err := Check("ok.toml", []byte(src), Default); err != nil {
		t.Fatalf("Check(ok) = %v; want nil", err)
	}
	var v map[string]any
	if _, err := toml.Decode(src, &v); err != nil {
		t.Fatalf("the sample is not TOML: %v", err)
	}
	deep := src + "late = " + strings.Repeat("[", 65) + strings.Repeat("]", 65) + "\n"
	var e *Error
	if err := Check("deep.toml", []byte(deep), Default); !errors.As(err, &e) || e.Line != 16 {
		t.Errorf("Check(deep after the sample) = %v; want an error on line 16", err)
	}
}

// Every TOML file of the repository (schemas, profiles, scenarios) is within
// the bounds.
func TestCheckRepositoryFiles(t *testing.T) {
	var n int
	err := filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".toml" {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if err := Check(p, src, Default); err != nil {
			t.Errorf("Check(%s) = %v; want nil", p, err)
		}
		return nil
	})
	if err != nil || n < 10 {
		t.Fatalf("walked %d TOML files: %v", n, err)
	}
}

func FuzzCheck(f *testing.F) {
	f.Add([]byte("a = { b = [1, 2] }\n[c.d]\ne = \"\"\"x\n\"\"\"\n"))
	f.Add([]byte("'''\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		err := Check("f", src, Limits{MaxBytes: 1 << 16, MaxDepth: 8, MaxKey: 16})
		var e *Error
		if err != nil && (!errors.As(err, &e) || e.Line < 0 || e.Line > bytes.Count(src, []byte("\n"))+1) {
			t.Errorf("Check(%q) = %v; want nil or an *Error on a line of the file", src, err)
		}
	})
}
