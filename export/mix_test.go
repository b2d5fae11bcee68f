package export

import (
	"bytes"
	"strconv"
	"testing"

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
