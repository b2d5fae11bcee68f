package session

import (
	"bytes"
	"encoding/json"
	"testing"
)

// indentVectors are JSON texts whose indentation has a trap: empty and
// nested containers, punctuation and escapes inside strings.
var indentVectors = []string{
	`{}`,
	`[]`,
	`{"a":[]}`,
	`{"a":{},"b":[1,2,{}]}`,
	`[[[]],[{}],[[1]]]`,
	`{"s":"{[,:]}","t":"a\"b\\","u":"\\\""}`,
	`{"k\"{":"v\\\\","n":null,"x":-1.5e3,"y":true}`,
	`"only a string"`,
	`12`,
	`{"conn":"10.0.0.1:5000-10.0.0.2:27015","server_listeners":[{"id":1,"type":"A.B","server_id":null}],"warnings":[]}`,
}

// wantIndent is json.Indent's answer, which indentJSON must give.
func wantIndent(t testing.TB, compact []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		t.Fatalf("json.Indent(%q): %v", compact, err)
	}
	return b.Bytes()
}

func TestIndentJSON(t *testing.T) {
	for _, v := range indentVectors {
		var c bytes.Buffer
		if err := json.Compact(&c, []byte(v)); err != nil {
			t.Fatalf("json.Compact(%q): %v", v, err)
		}
		c.WriteByte('\n') // as json.Encoder ends a value
		want := wantIndent(t, c.Bytes())
		if got := indentJSON(nil, c.Bytes(), "  "); !bytes.Equal(got, want) {
			t.Errorf("indentJSON(%q) = %q; want %q", c.Bytes(), got, want)
		}
	}
}

// FuzzIndentJSON checks indentJSON against json.Indent on the compact form
// of any valid JSON text.
func FuzzIndentJSON(f *testing.F) {
	for _, v := range indentVectors {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var c bytes.Buffer
		if json.Compact(&c, in) != nil {
			return
		}
		c.WriteByte('\n')
		want := wantIndent(t, c.Bytes())
		if got := indentJSON(nil, c.Bytes(), "  "); !bytes.Equal(got, want) {
			t.Fatalf("indentJSON(%q) = %q; want %q", c.Bytes(), got, want)
		}
	})
}
