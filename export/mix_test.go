package export

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/usmnscope/usmnscope/netpak"
)

// TestWriterTyped: without payload columns, rows go through the typed
// writer (plainRow, hexRow) in order, in batches and across them, nulls
// and the payload map as the row writer writes them: entries sorted by
// name, the last of a repeated name kept.
func TestWriterTyped(t *testing.T) {
	for _, withHex := range []bool{false, true} {
		var buf bytes.Buffer
		w := NewWriter(&buf, Columns(withHex, nil))
		const n = 2*batchRows + 100
		for i := range n {
			r := Record{N: int64(i + 1), Host: "h", Msg: "m", Hex: []byte{byte(i)}}
			if i%3 == 0 {
				r.Payload = []netpak.Span{{Name: "payload.b", Value: int64(1)}, {Name: "payload.a", Value: int64(i)}, {Name: "payload.b", Value: "x"}}
				r.ServerID = some(int64(0))
			}
			if err := w.Write(&r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		names, rows := readBack(t, buf.Bytes())
		if len(rows) != n {
			t.Fatalf("hex %v: %d rows; want %d", withHex, len(rows), n)
		}
		col := map[string]int{}
		for i, name := range names {
			col[name] = i
		}
		if _, ok := col["hex"]; ok != withHex {
			t.Errorf("hex %v: columns %v", withHex, names)
		}
		for i, row := range rows {
			if got := row[0][0].Int64(); got != int64(i+1) {
				t.Fatalf("hex %v: row %d n = %d; want %d", withHex, i, got, i+1)
			}
			keys, vals := row[col["payload/key_value/key"]], row[col["payload/key_value/value"]]
			sid := row[col["server_id"]][0]
			if i%3 != 0 {
				if len(keys) != 1 || !keys[0].IsNull() || !sid.IsNull() {
					t.Fatalf("hex %v: row %d payload %v, server_id %v; want null", withHex, i, keys, sid)
				}
				continue
			}
			if len(keys) != 2 || keys[0].String() != "payload.a" || keys[1].String() != "payload.b" ||
				vals[0].String() != strconv.Itoa(i) || vals[1].String() != `"x"` || sid.IsNull() || sid.Int64() != 0 {
				t.Fatalf("hex %v: row %d payload %v = %v, server_id %v; want payload.a = %d, payload.b = \"x\", server_id 0", withHex, i, keys, vals, sid, i)
			}
		}
	}
}

// TestWriterNullRuns: rows in runs of nulls and values, of every length
// up to a chunk (parquet-go writes 64 rows at a time) and past it, come
// back null where null and as written where not, the payload map too
// (parquet-go's run writer, for fields held by value, wrote the nulls
// after y nulls and y values as values: empty maps).
func TestWriterNullRuns(t *testing.T) {
	for y := 1; y <= 40; y += 3 {
		var buf bytes.Buffer
		w := NewWriter(&buf, Columns(false, nil))
		present := func(i int) bool { return i >= y && i < 2*y }
		n := 3*y + 70
		for i := range n {
			r := Record{N: int64(i + 1)}
			if present(i) {
				r.Payload = []netpak.Span{{Name: "payload.a", Value: int64(i)}}
				r.Pair, r.Summary, r.Listener = some(int64(0)), some("s"), some("")
			}
			if err := w.Write(&r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		names, rows := readBack(t, buf.Bytes())
		for c, name := range names {
			switch name {
			case "payload/key_value/key", "pair", "summary", "listener":
			default:
				continue
			}
			for i, row := range rows {
				v := row[c][0]
				// A null map's key is at definition level 0, an empty
				// map's at 1.
				null := v.IsNull() && v.DefinitionLevel() == 0
				if null == present(i) {
					t.Fatalf("y %d: row %d %s = %v (definition level %d); want null %v", y, i, name, v, v.DefinitionLevel(), !present(i))
				}
			}
		}
	}
}

// TestWriterEmptyIsNotNull: the typed writer holds some text columns as
// byte slices (null when nil) and some by value (null when empty): an
// empty listener, service, method, status or hex is an empty value, not
// null; a missing one is null; an id of 0 is 0.
func TestWriterEmptyIsNotNull(t *testing.T) {
	for _, withHex := range []bool{false, true} {
		var buf bytes.Buffer
		w := NewWriter(&buf, Columns(withHex, nil))
		recs := []Record{
			{N: 1, Listener: some(""), Service: some(""), Method: some(""), Status: some(""), Hex: []byte{}, ClientID: some(int64(0)), ServiceID: some(int32(0))},
			{N: 2},
			{N: 3, Listener: some("L"), Status: some("Ok"), Summary: some("s"), Worst: some("warn"), Pair: some(int64(1)), Hex: []byte{0xab}},
		}
		names, rows := writeBack(t, w, &buf, recs)
		col := map[string]int{}
		for i, name := range names {
			col[name] = i
		}
		show := func(row int, name string) string {
			v := rows[row][col[name]][0]
			if v.IsNull() {
				return "<null>"
			}
			return strconv.Quote(v.String())
		}
		for _, tt := range []struct {
			row  int
			name string
			want string
		}{
			{0, "listener", `""`}, {0, "service", `""`}, {0, "method", `""`}, {0, "status", `""`},
			{0, "client_id", `"0"`}, {0, "service_id", `"0"`}, {0, "summary", "<null>"}, {0, "pair", "<null>"},
			{1, "listener", "<null>"}, {1, "service", "<null>"}, {1, "status", "<null>"}, {1, "client_id", "<null>"},
			{1, "worst", "<null>"}, {1, "payload_message", "<null>"},
			{2, "listener", `"L"`}, {2, "status", `"Ok"`}, {2, "summary", `"s"`}, {2, "worst", `"warn"`}, {2, "pair", `"1"`},
		} {
			if got := show(tt.row, tt.name); got != tt.want {
				t.Errorf("hex %v: row %d %s = %s; want %s", withHex, tt.row, tt.name, got, tt.want)
			}
		}
		if withHex {
			for row, want := range []string{`""`, "<null>", `"ab"`} {
				if got := show(row, "hex"); got != want {
					t.Errorf("row %d hex = %s; want %s", row, got, want)
				}
			}
		}
	}
}

// TestWriterBoundsBytes: rows of large values are handed over by bytes,
// not only by count, and a row group ends by its bytes, not only at
// RowGroupRows rows: 48 rows of 512 KiB random bytes (hex 1 MiB a row, as
// hostile gzip frames make with --hex) make several row groups of about
// rowGroupBytes (lowered to 8 MiB here), on the typed and the row path.
func TestWriterBoundsBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the plain run writes the 48 MiB of hex (13 s under -race)")
	}
	defer func(b int64) { rowGroupBytes = b }(rowGroupBytes)
	rowGroupBytes = 8 << 20
	rnd := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 512<<10)
	for i := range big {
		big[i] = byte(rnd.Uint32())
	}
	for _, payload := range [][]Column{nil, {{Name: "payload.x", Type: Int64}}} {
		var buf bytes.Buffer
		w := NewWriter(&buf, Columns(true, payload))
		const n = 48
		for i := range n {
			r := Record{N: int64(i + 1), Hex: big}
			if err := w.Write(&r); err != nil {
				t.Fatal(err)
			}
			if p := w.pendingRows(); 2*len(big)*p > batchBytes {
				t.Fatalf("payload columns %v: after row %d, %d rows of %d hex bytes pending; want at most %d bytes", payload != nil, i+1, p, 2*len(big), batchBytes)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		groups := f.Metadata().RowGroups
		rows := int64(0)
		for _, g := range groups {
			rows += g.NumRows
			size := int64(0)
			for _, c := range g.Columns {
				size += c.MetaData.TotalCompressedSize
				// No bounds for hex: parquet-go keeps every page's, whole
				// values, until the footer (3.9 GB for 2,048 rows of 2 MiB).
				if c.MetaData.PathInSchema[0] == "hex" && len(c.MetaData.Statistics.MaxValue) > 0 {
					t.Errorf("payload columns %v: hex has bounds of %d bytes", payload != nil, len(c.MetaData.Statistics.MaxValue))
				}
			}
			// Checked after each batch handed over: the group, then a
			// batch of at most batchBytes more.
			if size > rowGroupBytes+batchBytes {
				t.Errorf("payload columns %v: a row group of %d bytes; want at most %d and a batch", payload != nil, size, rowGroupBytes)
			}
		}
		if rows != n || len(groups) < 2 {
			t.Errorf("payload columns %v: %d rows in %d row groups; want %d rows in several", payload != nil, rows, len(groups), n)
		}
	}
}

// pendingRows is how many rows w holds before handing them over.
func (w *Writer) pendingRows() int {
	if w.tw != nil {
		return w.tw.pending()
	}
	return w.nrows
}
