package export

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/rpc"
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

// writeBack writes recs with w (to buf), closes it and reads the file
// back (readBack).
func writeBack(t *testing.T, w *Writer, buf *bytes.Buffer, recs []Record) (names []string, rows [][][]parquet.Value) {
	t.Helper()
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return readBack(t, buf.Bytes())
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
			Worst: some("warn"), RequestID: some(int64(7)), ServiceID: some(int32(1)), Values: new(rpc.Record),
			Payload: []netpak.Span{{Name: "payload.text", Value: "hi\xff"}, {Name: "payload.to", Value: uint64(1) << 63}, {Name: "payload.text", Value: "last"}, {Name: "payload.x", Value: 3}}},
	}
	names, rows := writeBack(t, w, &buf, recs)
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

// TestWriterSight: seen, one_way_ns and missing_in (several captures)
// are written alike by the typed writers (with and without hex) and the
// row writer (payload columns): null lists for a record without a sight,
// an empty missing_in for a record every capture has, each entry in
// order otherwise.
func TestWriterSight(t *testing.T) {
	recs := []Record{
		{N: 1, Conn: "a-b", Dir: "c2s", Proto: "unturned", Msg: "PingRequest"},
		{N: 2, Conn: "a-b", Dir: "c2s", Proto: "ulinkrpc", Msg: "Request", Sighted: true,
			Seen:     []Seen{{Capture: "client.pcap", Host: "client", Frame: 5, TimeNS: 100}, {Capture: "server.pcap", Host: "server", Frame: 7, TimeNS: 2100}},
			OneWayNS: some(int64(2000)), MissingIn: []string{}},
		{N: 3, Conn: "a-b", Dir: "s2c", Proto: "ulinkrpc", Msg: "Response", Sighted: true,
			Seen: []Seen{{Capture: "server.pcap", Host: "server", Frame: 9, TimeNS: 3000}}, MissingIn: []string{"client.pcap"}},
	}
	want := []map[string]string{
		{"seen/list/element/capture": "<null@0>", "seen/list/element/time_ns": "<null@0>", "one_way_ns": "<null@0>", "missing_in/list/element": "<null@0>"},
		{"seen/list/element/capture": "client.pcap server.pcap", "seen/list/element/host": "client server", "seen/list/element/frame": "5 7",
			"seen/list/element/time_ns": "100 2100", "one_way_ns": "2000", "missing_in/list/element": "<null@1>"},
		{"seen/list/element/capture": "server.pcap", "seen/list/element/time_ns": "3000", "one_way_ns": "<null@0>", "missing_in/list/element": "client.pcap"},
	}
	for _, tc := range []struct {
		name string
		cols []Column
	}{
		{"typed", Columns(false, nil)},
		{"typed with hex", Columns(true, nil)},
		{"rows", Columns(true, []Column{{Name: "payload.x", Type: Int64}})},
	} {
		var buf bytes.Buffer
		w := NewWriter(&buf, tc.cols)
		for i := range recs {
			if err := w.Write(&recs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		names, rows := readBack(t, buf.Bytes())
		for r, wm := range want {
			for name, w := range wm {
				k := -1
				for i, n := range names {
					if n == name {
						k = i
					}
				}
				if k < 0 {
					t.Fatalf("%s: no column %q in %v", tc.name, name, names)
				}
				var got []string
				for _, v := range rows[r][k] {
					if v.IsNull() {
						got = append(got, fmt.Sprintf("<null@%d>", v.DefinitionLevel()))
					} else {
						got = append(got, v.String())
					}
				}
				if g := strings.Join(got, " "); g != w {
					t.Errorf("%s: row %d %s = %q; want %q", tc.name, r, name, g, w)
				}
			}
		}
	}
}
