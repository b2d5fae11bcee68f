package export

import (
	"bytes"
	"io"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/usmnscope/usmnscope/netpak"
)

// readBack reads every row of a Parquet file as column name → values
// (nil for a null; a map column's keys and values as two lists).
func readBack(t *testing.T, data []byte) (names []string, rows [][][]parquet.Value) {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("OpenFile: %v", err)
	}
	for _, p := range f.Schema().Columns() {
		names = append(names, joinPath(p))
	}
	for _, rg := range f.RowGroups() {
		rs := rg.Rows()
		buf := make([]parquet.Row, 16)
		for {
			n, err := rs.ReadRows(buf)
			for _, row := range buf[:n] {
				cols := make([][]parquet.Value, len(names))
				row.Range(func(c int, vs []parquet.Value) bool {
					cols[c] = append([]parquet.Value(nil), vs...)
					return true
				})
				rows = append(rows, cols)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("ReadRows: %v", err)
			}
		}
		rs.Close()
	}
	return names, rows
}

func joinPath(p []string) string {
	s := p[0]
	for _, x := range p[1:] {
		s += "/" + x
	}
	return s
}

func TestWriterRows(t *testing.T) {
	payload := []Column{{Name: "payload.text", Type: String}, {Name: "payload.to", Type: UInt64}, {Name: "payload.x", Type: Double}}
	cols := Columns(true, payload)
	var buf bytes.Buffer
	w := NewWriter(&buf, cols)
	recs := []Record{
		{N: 1, TimeNS: 5, Host: "h", Capture: "c.pcapng", Frame: 3, Conn: "a-b", Dir: "c2s", Proto: "unturned", Msg: "PingRequest", Len: 1,
			Summary: some("PingRequest"), Hex: []byte{0xab}},
		{N: 2, TimeNS: 6, Host: "h", Capture: "c.pcapng", Frame: 4, Conn: "a-b", Dir: "s2c", Proto: "ulinkrpc", Msg: "Request", Len: 9,
			Worst: some("warn"), RequestID: some(int64(7)), ServiceID: some(int32(1)), RPC: true,
			Payload: []netpak.Span{{Name: "payload.text", Value: "hi\xff"}, {Name: "payload.to", Value: uint64(1) << 63}, {Name: "payload.text", Value: "last"}, {Name: "payload.x", Value: 3}}},
	}
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	names, rows := readBack(t, buf.Bytes())
	if len(rows) != 2 {
		t.Fatalf("rows = %d; want 2", len(rows))
	}
	col := func(row int, name string) []parquet.Value {
		for i, n := range names {
			if n == name {
				return rows[row][i]
			}
		}
		t.Fatalf("no column %q in %v", name, names)
		return nil
	}
	str := func(vs []parquet.Value) []string {
		var out []string
		for _, v := range vs {
			if v.IsNull() {
				out = append(out, "<null>")
			} else {
				out = append(out, v.String())
			}
		}
		return out
	}
	for _, tt := range []struct {
		row  int
		name string
		want []string
	}{
		{0, "n", []string{"1"}},
		{0, "summary", []string{"PingRequest"}},
		{0, "worst", []string{"<null>"}},
		{0, "hex", []string{"ab"}},
		{0, "payload/key_value/key", []string{"<null>"}},
		{0, "payload.text", []string{"<null>"}},
		{1, "worst", []string{"warn"}},
		{1, "request_id", []string{"7"}},
		{1, "service_id", []string{"1"}},
		{1, "method_id", []string{"<null>"}},
		{1, "hex", []string{"<null>"}},
		// A name listed twice keeps its last value, as a JSON object's;
		// the entries are sorted by name.
		{1, "payload/key_value/key", []string{"payload.text", "payload.to", "payload.x"}},
		{1, "payload/key_value/value", []string{`"last"`, "9223372036854775808", "3"}},
		{1, "payload.text", []string{"last"}},
		{1, "payload.to", []string{"-9223372036854775808"}}, // UINT64's bits read as int64
		{1, "payload.x", []string{"3"}},
	} {
		if got := str(col(tt.row, tt.name)); !equal(got, tt.want) {
			t.Errorf("row %d %s = %q; want %q", tt.row, tt.name, got, tt.want)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestValidUTF8(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"abc", "abc"},
		{"a\xff\xfeb", "a\ufffd\ufffdb"},
		{"é", "é"},
	} {
		if got := validUTF8(tt.in); got != tt.want {
			t.Errorf("validUTF8(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
