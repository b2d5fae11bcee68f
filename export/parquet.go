package export

import (
	"encoding/hex"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/usmnscope/usmnscope/netpak"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// Type is a column's Parquet type as outputs.md names it.
type Type uint8

// The column types.
const (
	Int64 Type = iota
	Int32
	String
	Double
	Boolean
	UInt64
	StringMap // MAP<STRING, STRING>
	SeenList  // LIST<STRUCT<capture STRING, host STRING, frame INT64, time_ns INT64>>
	StringList
)

// String returns the type as outputs.md spells it.
func (t Type) String() string {
	switch t {
	case Int64:
		return "INT64"
	case Int32:
		return "INT32"
	case String:
		return "STRING"
	case Double:
		return "DOUBLE"
	case Boolean:
		return "BOOLEAN"
	case UInt64:
		return "UINT64"
	case StringMap:
		return "MAP<STRING, STRING>"
	case SeenList:
		return "LIST<STRUCT<capture STRING, host STRING, frame INT64, time_ns INT64>>"
	case StringList:
		return "LIST<STRING>"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Column is one column of the export: its name, type and whether every
// row has a value.
type Column struct {
	Name     string
	Type     Type
	Required bool
}

// Columns returns the outputs.md column set: the fixed columns, hex with
// withHex, then payload, one column per payload field of the schemas
// (PayloadColumns).
func Columns(withHex bool, payload []Column) []Column {
	cols := []Column{
		{"n", Int64, true}, {"time_ns", Int64, true}, {"host", String, true},
		{"capture", String, true}, {"frame", Int64, true}, {"conn", String, true},
		{"dir", String, true}, {"proto", String, true}, {"msg", String, true},
		{"len", Int32, true}, {"summary", String, false}, {"worst", String, false},
		{"listener", String, false}, {"client_id", Int64, false}, {"server_id", Int64, false},
		{"service", String, false}, {"method", String, false}, {"service_id", Int32, false},
		{"method_id", Int32, false}, {"request_id", Int64, false}, {"status", String, false},
		{"pair", Int64, false}, {"latency_ns", Int64, false}, {"payload_message", String, false},
		{"payload_method", String, false}, {"payload", StringMap, false},
		{"seen", SeenList, false}, {"one_way_ns", Int64, false}, {"missing_in", StringList, false},
	}
	if withHex {
		cols = append(cols, Column{"hex", String, false})
	}
	return append(cols, payload...)
}

// fixedColumns is how many columns Columns lists before hex.
const fixedColumns = 29

// dictColumns are the columns of few distinct values, dictionary-encoded.
var dictColumns = map[string]bool{
	"host": true, "capture": true, "conn": true, "dir": true, "proto": true, "msg": true,
	"worst": true, "listener": true, "service": true, "method": true, "status": true,
	"payload_message": true, "payload_method": true,
}

// Schema returns the Parquet schema of cols, in their order (a parquet.Group
// would sort them by name): a struct type made for it, which parquet-go
// reads in field order.
func Schema(cols []Column) *parquet.Schema {
	fields := make([]reflect.StructField, len(cols))
	for i, c := range cols {
		var t reflect.Type
		switch c.Type {
		case Int64:
			t = reflect.TypeFor[int64]()
		case Int32:
			t = reflect.TypeFor[int32]()
		case String:
			t = reflect.TypeFor[string]()
		case Double:
			t = reflect.TypeFor[float64]()
		case Boolean:
			t = reflect.TypeFor[bool]()
		case UInt64:
			t = reflect.TypeFor[uint64]()
		case StringMap:
			t = reflect.TypeFor[map[string]string]()
		case SeenList:
			t = reflect.TypeFor[[]Seen]()
		case StringList:
			t = reflect.TypeFor[[]string]()
		}
		tag := c.Name
		if !c.Required {
			tag += ",optional"
		}
		if c.Type == SeenList || c.Type == StringList {
			tag += ",list"
		}
		if dictColumns[c.Name] {
			tag += ",dict"
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("C%d", i), Type: t, Tag: reflect.StructTag(`parquet:"` + tag + `"`)}
	}
	return parquet.SchemaOf(reflect.New(reflect.StructOf(fields)).Elem().Interface())
}

// RowGroupRows is the most rows a row group holds: what a Writer keeps in
// memory is one row group's pages (at about 20 bytes a compressed row,
// a few MiB), whatever the capture's size.
const RowGroupRows = 128 << 10

// Writer writes Records as Parquet rows.
type Writer struct {
	cols    []Column
	payload map[string]int // payload column index by field name
	hex     bool
	w       *parquet.Writer // with payload columns
	tw      typedWriter     // without: the typed writer
	rows    []parquet.Row
	nrows   int
	scratch []byte
	keys    []byte // map keys and values, the rows' until they are written
	ends    []int
	seen    map[string]int
	uniq    []netpak.Span
	held    int   // about the bytes of the rows not yet handed over (held)
	base    int64 // the file's size when the row group began (endGroup)
}

// batchRows is how many rows a Writer hands parquet-go at once.
// Typed rows point into their own batch, which never grows past it.
const batchRows = 512

// NewWriter returns a Writer of cols (Columns) to out.
func NewWriter(out io.Writer, cols []Column) *Writer {
	w := &Writer{cols: cols, payload: map[string]int{}}
	for i, c := range cols {
		if i >= fixedColumns && c.Name == "hex" {
			w.hex = true
		}
		if i >= fixedColumns && c.Name != "hex" {
			w.payload[c.Name] = i
		}
	}
	// Integers delta-encoded (n, time_ns and frame grow by little: zstd
	// then reads a fifth of the bytes); pages of 64 KiB, so that the
	// pages being filled, one per column, stay in a core's cache (at 256
	// KiB, 34 columns' pages did not: export at 4M messages took 3.1 s
	// and 57 MB, at 64 KiB 2.7 s and 36 MB); no page bounds for the
	// columns unbounded lists.
	opts := []parquet.WriterOption{
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedFastest}),
		parquet.DefaultEncodingFor(parquet.Int64, &parquet.DeltaBinaryPacked),
		parquet.DefaultEncodingFor(parquet.Int32, &parquet.DeltaBinaryPacked),
		parquet.PageBufferSize(64 << 10),
		parquet.MaxRowsPerRowGroup(RowGroupRows),
		parquet.CreatedBy("usmnscope", "", ""),
	}
	for _, path := range unbounded(cols) {
		opts = append(opts, parquet.SkipPageBounds(path...), parquet.SkipPageStatistics(path...))
	}
	switch {
	case len(w.payload) > 0:
		// Payload columns: a schema made for them, rows only.
		w.w = parquet.NewWriter(out, append(opts, Schema(cols))...)
	case w.hex:
		w.tw = newTyped[hexRow](parquet.NewGenericWriter[hexRow](out, opts...))
	default:
		w.tw = newTyped[plainRow](parquet.NewGenericWriter[plainRow](out, opts...))
	}
	return w
}

// Write adds r as one row; rows are handed to parquet-go in batches of
// batchRows rows or batchBytes bytes, whichever comes first.
func (w *Writer) Write(r *Record) error {
	w.held += held(r, w.hex)
	if w.tw != nil {
		w.tw.add(r)
		if w.tw.pending() == batchRows || w.held >= batchBytes {
			w.held = 0 // flushRows' on the row path
			return w.tw.flush()
		}
		return nil
	}
	if w.nrows == len(w.rows) {
		w.rows = append(w.rows, nil)
	}
	w.rows[w.nrows] = w.row(w.rows[w.nrows][:0], r)
	w.nrows++
	if w.nrows == batchRows || w.held >= batchBytes {
		return w.flushRows()
	}
	return nil
}

// unbounded lists the columns written without page bounds (min and max
// values per page and row group): the free text (summary, conn), whose
// ranges never skip a row group, and the columns whose values can be
// large (hex, the payload map's texts, string payload columns): parquet-go
// keeps each page's bounds, whole values, for the file's column index
// until the footer, so that 2,048 frames inflating to 1 MiB exported with
// --hex held 3.9 GB.
func unbounded(cols []Column) [][]string {
	paths := [][]string{{"summary"}, {"conn"}, {"payload", "key_value", "key"}, {"payload", "key_value", "value"}}
	for i, c := range cols {
		if i >= fixedColumns && c.Type == String {
			paths = append(paths, []string{c.Name})
		}
	}
	return paths
}

// batchBytes bounds the bytes a batch of rows holds (typedBatches of
// them circulate): a row's payload texts, summary and hex, which a
// hostile capture makes up to twice max_inflate a row (issue 29's gzip
// frames of 1 MiB: 512 rows with --hex held 1 GiB).
const batchBytes = 4 << 20

// rowGroupBytes bounds a row group by its bytes as RowGroupRows bounds it
// by rows: parquet-go keeps a row group's pages in memory until it ends,
// and 128k rows of large hex or payload texts would be gigabytes.
var rowGroupBytes int64 = 32 << 20 // a variable for the tests

// held is about the bytes r's row holds beyond its fixed columns.
func held(r *Record, withHex bool) int {
	n := len(r.Summary.V)
	for i := range r.Payload {
		n += len(r.Payload[i].Name) + 16
		switch v := r.Payload[i].Value.(type) {
		case string:
			n += len(v)
		case []byte:
			n += 2 * len(v)
		}
	}
	if withHex {
		n += 2 * len(r.Hex)
	}
	return n
}

func (w *Writer) flushRows() error {
	_, err := w.w.WriteRows(w.rows[:w.nrows])
	w.nrows, w.held = 0, 0
	w.keys = w.keys[:0]
	if err == nil {
		err = endGroup(w.w, &w.base)
	}
	return err
}

// endGroup ends the row group being written to f once it holds
// rowGroupBytes (parquet-go's Size: what f has written, base before the
// group, and the group's pages and buffered values).
func endGroup(f interface {
	Size() int64
	Flush() error
}, base *int64) error {
	if f.Size()-*base < rowGroupBytes {
		return nil
	}
	err := f.Flush()
	*base = f.Size()
	return err
}

// Close writes the rows held and the file's footer.
func (w *Writer) Close() error {
	if w.tw != nil {
		if err := w.tw.flush(); err != nil {
			return err
		}
		return w.tw.close()
	}
	if err := w.flushRows(); err != nil {
		return err
	}
	return w.w.Close()
}

// str is s's bytes without a copy: parquet-go copies the values of the
// rows it is handed.
func str(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func (w *Writer) row(row parquet.Row, r *Record) parquet.Row {
	c := 0
	req := func(v parquet.Value) {
		row = append(row, v.Level(0, 0, c))
		c++
	}
	opt := func(v parquet.Value, ok bool) {
		if ok {
			row = append(row, v.Level(0, 1, c))
		} else {
			row = append(row, parquet.NullValue().Level(0, 0, c))
		}
		c++
	}
	optS := func(o Opt[string]) { opt(parquet.ByteArrayValue(str(validUTF8(o.V))), o.OK) }
	optI := func(o Opt[int64]) { opt(parquet.Int64Value(o.V), o.OK) }
	optI32 := func(o Opt[int32]) { opt(parquet.Int32Value(o.V), o.OK) }

	req(parquet.Int64Value(r.N))
	req(parquet.Int64Value(r.TimeNS))
	req(parquet.ByteArrayValue(str(validUTF8(r.Host))))
	req(parquet.ByteArrayValue(str(validUTF8(r.Capture))))
	req(parquet.Int64Value(r.Frame))
	req(parquet.ByteArrayValue(str(r.Conn)))
	req(parquet.ByteArrayValue(str(r.Dir)))
	req(parquet.ByteArrayValue(str(r.Proto)))
	req(parquet.ByteArrayValue(str(validUTF8(r.Msg))))
	req(parquet.Int32Value(r.Len))
	optS(r.Summary)
	optS(r.Worst)
	optS(r.Listener)
	optI(r.ClientID)
	optI(r.ServerID)
	optS(r.Service)
	optS(r.Method)
	optI32(r.ServiceID)
	optI32(r.MethodID)
	optI(r.RequestID)
	optS(r.Status)
	optI(r.Pair)
	optI(r.LatencyNS)
	optS(r.PayloadMessage)
	optS(r.PayloadMeth)
	row = w.appendMap(row, c, r)
	c += 2
	row = w.appendSight(row, c, r)
	c += 6
	if w.hex {
		if r.Hex != nil {
			w.scratch = hex.AppendEncode(w.scratch[:0], r.Hex)
			// Copied: the scratch is the next row's.
			opt(parquet.ByteArrayValue(append([]byte(nil), w.scratch...)), true)
		} else {
			opt(parquet.Value{}, false)
		}
	}
	if len(w.payload) > 0 {
		row = w.appendPayloadColumns(row, c, r)
	}
	return row
}

// appendMap appends the payload map's two leaf columns (key at c, value
// at c+1): null without payload fields, else one entry per field, its
// name and its value's JSON text, sorted by name as parquet-go writes a
// Go map's (the typed writer's); of a name listed twice (a map's keys are
// unique) the last, as a JSON object's reader keeps.
func (w *Writer) appendMap(row parquet.Row, c int, r *Record) parquet.Row {
	if len(r.Payload) == 0 {
		return append(row, parquet.NullValue().Level(0, 0, c), parquet.NullValue().Level(0, 0, c+1))
	}
	fs := r.Payload
	if len(fs) > 1 {
		fs = w.unique(fs)
	}
	start := len(w.keys)
	w.ends = w.ends[:0]
	for i := range fs {
		w.keys = append(w.keys, validUTF8(fs[i].Name)...)
		w.ends = append(w.ends, len(w.keys))
		w.keys = r.AppendValue(w.keys, fs[i].Value)
		w.ends = append(w.ends, len(w.keys))
	}
	// Sliced once all are appended: the keys' array may have moved while
	// growing (an earlier row's slices keep the array they point into).
	buf := w.keys[start:]
	at := func(j int) []byte {
		lo := 0
		if j > 0 {
			lo = w.ends[j-1] - start
		}
		return buf[lo : w.ends[j]-start : w.ends[j]-start]
	}
	for k := range 2 {
		for i := range fs {
			rep := 1
			if i == 0 {
				rep = 0
			}
			row = append(row, parquet.ByteArrayValue(at(2*i+k)).Level(rep, 2, c+k))
		}
	}
	return row
}

// appendSight appends the seen list's four leaf columns (capture, host,
// frame, time_ns from c), one_way_ns (c+4) and the missing_in list's
// leaf (c+5): the lists null without a sight, else one value per entry
// (an empty list one value at definition level 1).
func (w *Writer) appendSight(row parquet.Row, c int, r *Record) parquet.Row {
	list := func(n int, leaf int, val func(i int) parquet.Value) {
		switch {
		case !r.Sighted:
			row = append(row, parquet.NullValue().Level(0, 0, leaf))
		case n == 0:
			row = append(row, parquet.NullValue().Level(0, 1, leaf))
		default:
			for i := range n {
				rep := 1
				if i == 0 {
					rep = 0
				}
				row = append(row, val(i).Level(rep, 2, leaf))
			}
		}
	}
	ss := r.Seen
	list(len(ss), c, func(i int) parquet.Value { return parquet.ByteArrayValue(str(validUTF8(ss[i].Capture))) })
	list(len(ss), c+1, func(i int) parquet.Value { return parquet.ByteArrayValue(str(validUTF8(ss[i].Host))) })
	list(len(ss), c+2, func(i int) parquet.Value { return parquet.Int64Value(ss[i].Frame) })
	list(len(ss), c+3, func(i int) parquet.Value { return parquet.Int64Value(ss[i].TimeNS) })
	if r.OneWayNS.OK {
		row = append(row, parquet.Int64Value(r.OneWayNS.V).Level(0, 1, c+4))
	} else {
		row = append(row, parquet.NullValue().Level(0, 0, c+4))
	}
	mi := r.MissingIn
	list(len(mi), c+5, func(i int) parquet.Value { return parquet.ByteArrayValue(str(validUTF8(mi[i]))) })
	return row
}

// unique returns fs sorted by name, without the fields whose name a
// later field repeats.
func (w *Writer) unique(fs []netpak.Span) []netpak.Span {
	if w.seen == nil {
		w.seen = map[string]int{}
	}
	clear(w.seen)
	for i := range fs {
		w.seen[fs[i].Name] = i
	}
	out := w.uniq[:0]
	for i := range fs {
		if w.seen[fs[i].Name] == i {
			out = append(out, fs[i])
		}
	}
	slices.SortFunc(out, func(a, b netpak.Span) int { return strings.Compare(a.Name, b.Name) })
	w.uniq = out
	return out
}

// appendPayloadColumns appends the payload columns, the leaf columns from
// c on: each the value of the record's field of that name converted to
// the column's type, null when the record has none or it does not
// convert.
func (w *Writer) appendPayloadColumns(row parquet.Row, c int, r *Record) parquet.Row {
	start := len(row)
	first := len(w.cols) - len(w.payload) // the first payload column
	for i := first; i < len(w.cols); i++ {
		row = append(row, parquet.NullValue().Level(0, 0, c+i-first))
	}
	for i := range r.Payload {
		f := &r.Payload[i]
		ci, ok := w.payload[f.Name]
		if !ok || f.Value == nil {
			continue
		}
		var v parquet.Value
		switch w.cols[ci].Type {
		case Int64:
			x, ok2 := asInt64(f.Value)
			if !ok2 {
				continue
			}
			v = parquet.Int64Value(x)
		case UInt64:
			x, ok2 := asUint64(f.Value)
			if !ok2 {
				continue
			}
			v = parquet.Int64Value(int64(x))
		case Double:
			x, ok2 := asFloat64(f.Value)
			if !ok2 {
				continue
			}
			v = parquet.DoubleValue(x)
		case Boolean:
			x, ok2 := f.Value.(bool)
			if !ok2 {
				continue
			}
			v = parquet.BooleanValue(x)
		default:
			// A string as itself, a byte block as the hex the record
			// spells it in, anything else (a vector, a colour) as its
			// JSON text.
			switch x := f.Value.(type) {
			case string:
				v = parquet.ByteArrayValue(str(validUTF8(x)))
			case []byte:
				v = parquet.ByteArrayValue(hex.AppendEncode(nil, x))
			default:
				v = parquet.ByteArrayValue(r.AppendValue(nil, f.Value))
			}
		}
		row[start+ci-first] = v.Level(0, 1, c+ci-first)
	}
	return row
}
