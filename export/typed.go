package export

import (
	"encoding/hex"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
)

// plainRow is the outputs.md column set as a Go struct, in Columns'
// order, for parquet-go's typed writer: it maps struct fields straight to
// column buffers, where a parquet.Row is a value per column to shred (at
// a million records, about half the writer's time). A nullable column is
// a pointer, pointing at its value in the same row (v) when there is
// one; the payload map too. parquet-go writes an optional field held by
// value (null when zero) a run of rows at a time, but misreads its runs:
// after y nulls and y values, the rows to the end of the 64-row chunk are
// written as values (a zero for a null int, an empty map for a null map;
// parquet-go v0.32.1, column_buffer_write.go, writeRowsFuncOfOptional),
// where a pointer is written a row at a time and right
// (TestWriterNullRuns). The payload map is kept from row to row in its
// slot, cleared and filled again; parquet-go writes a map's entries
// sorted by key.
type plainRow struct {
	N       int64   `parquet:"n"`
	TimeNS  int64   `parquet:"time_ns"`
	Host    string  `parquet:"host,dict"`
	Capture string  `parquet:"capture,dict"`
	Frame   int64   `parquet:"frame"`
	Conn    string  `parquet:"conn,dict"`
	Dir     string  `parquet:"dir,dict"`
	Proto   string  `parquet:"proto,dict"`
	Msg     string  `parquet:"msg,dict"`
	Len     int32   `parquet:"len"`
	Summary *string `parquet:"summary,optional"`
	Worst   *string `parquet:"worst,optional,dict"`

	Listener       *string            `parquet:"listener,optional,dict"`
	ClientID       *int64             `parquet:"client_id,optional"`
	ServerID       *int64             `parquet:"server_id,optional"`
	Service        *string            `parquet:"service,optional,dict"`
	Method         *string            `parquet:"method,optional,dict"`
	ServiceID      *int32             `parquet:"service_id,optional"`
	MethodID       *int32             `parquet:"method_id,optional"`
	RequestID      *int64             `parquet:"request_id,optional"`
	Status         *string            `parquet:"status,optional,dict"`
	Pair           *int64             `parquet:"pair,optional"`
	LatencyNS      *int64             `parquet:"latency_ns,optional"`
	PayloadMessage *string            `parquet:"payload_message,optional,dict"`
	PayloadMethod  *string            `parquet:"payload_method,optional,dict"`
	Payload        *map[string]string `parquet:"payload,optional"`
	Seen           []Seen             `parquet:"seen,optional,list"`
	OneWayNS       *int64             `parquet:"one_way_ns,optional"`
	MissingIn      []string           `parquet:"missing_in,optional,list"`

	v struct {
		summary, worst, listener, service, method, status, pm, pmeth string
		clientID, serverID, requestID, pair, latency, oneWay         int64
		serviceID, methodID                                          int32
		payload                                                      map[string]string
		buf                                                          []byte
	}
}

// hexRow is plainRow with the hex column (--hex).
type hexRow struct {
	plainRow
	Hex *string `parquet:"hex,optional"`
	hv  string
}

func setS(p **string, v *string, o Opt[string]) {
	if o.OK {
		*v = validUTF8(o.V)
		*p = v
	} else {
		*p = nil
	}
}

func setI[T int64 | int32](p **T, v *T, o Opt[T]) {
	if o.OK {
		*v = o.V
		*p = v
	} else {
		*p = nil
	}
}

func (w *plainRow) fill(r *Record) {
	w.N, w.TimeNS, w.Host, w.Capture, w.Frame = r.N, r.TimeNS, validUTF8(r.Host), validUTF8(r.Capture), r.Frame
	w.Conn, w.Dir, w.Proto, w.Msg, w.Len = r.Conn, r.Dir, r.Proto, validUTF8(r.Msg), r.Len
	v := &w.v
	setS(&w.Summary, &v.summary, r.Summary)
	setS(&w.Worst, &v.worst, r.Worst)
	setS(&w.Listener, &v.listener, r.Listener)
	setI(&w.ClientID, &v.clientID, r.ClientID)
	setI(&w.ServerID, &v.serverID, r.ServerID)
	setS(&w.Service, &v.service, r.Service)
	setS(&w.Method, &v.method, r.Method)
	setI(&w.ServiceID, &v.serviceID, r.ServiceID)
	setI(&w.MethodID, &v.methodID, r.MethodID)
	setI(&w.RequestID, &v.requestID, r.RequestID)
	setS(&w.Status, &v.status, r.Status)
	setI(&w.Pair, &v.pair, r.Pair)
	setI(&w.LatencyNS, &v.latency, r.LatencyNS)
	setS(&w.PayloadMessage, &v.pm, r.PayloadMessage)
	setS(&w.PayloadMethod, &v.pmeth, r.PayloadMeth)
	w.Payload = nil
	if len(r.Payload) > 0 {
		if v.payload == nil {
			v.payload = make(map[string]string, len(r.Payload))
		}
		clear(v.payload)
		for i := range r.Payload {
			// The last of a name repeated wins, as a JSON object's.
			v.buf = r.AppendValue(v.buf[:0], r.Payload[i].Value)
			v.payload[validUTF8(r.Payload[i].Name)] = validUTF8(string(v.buf))
		}
		w.Payload = &v.payload
	}
	w.Seen, w.MissingIn = nil, nil
	if r.Sighted {
		// Not nil, so that an empty list is an empty list, not null.
		w.Seen, w.MissingIn = make([]Seen, len(r.Seen)), make([]string, len(r.MissingIn))
		copy(w.Seen, r.Seen)
		copy(w.MissingIn, r.MissingIn)
	}
	setI(&w.OneWayNS, &v.oneWay, r.OneWayNS)
}

func (w *hexRow) fill(r *Record) {
	w.plainRow.fill(r)
	if r.Hex == nil {
		w.Hex = nil
		return
	}
	// hex.EncodeToString allocates the string the row keeps until written.
	w.hv = hex.EncodeToString(r.Hex)
	w.Hex = &w.hv
}

// typed is the typed writer of one row type: rows filled in place on
// the caller's goroutine, a batch at a time, and handed to parquet-go on
// another (its shredding, encoding and zstd are most of an export's work:
// on two cores they run beside the filling and the capture's decoding,
// issue 27). A filled row owns what it holds (Go strings, which nothing
// in a record aliases from reusable memory, and copies: the payload map's
// texts, hex), so the caller's records may be reused once add returns.
type typed[T any, PT interface {
	*T
	fill(*Record)
}] struct {
	w    *parquet.GenericWriter[T]
	rows []T        // being filled
	full chan []T   // to the writing goroutine (nil: Close)
	free chan []T   // written batches, for filling again
	done chan error // the writing goroutine's first error, at its end
	err  error      // that error, once received
	bad  atomic.Bool
}

// typedBatches is how many row batches circulate: one filling, one
// waiting, one written.
const typedBatches = 3

func newTyped[T any, PT interface {
	*T
	fill(*Record)
}](w *parquet.GenericWriter[T]) *typed[T, PT] {
	t := &typed[T, PT]{w: w, full: make(chan []T, typedBatches), free: make(chan []T, typedBatches), done: make(chan error, 1)}
	// Capacity batchRows, never grown: rows point into themselves.
	t.rows = make([]T, 0, batchRows)
	for range typedBatches - 1 {
		t.free <- make([]T, 0, batchRows)
	}
	go t.run(t.full)
	return t
}

// run writes the batches handed over until Close, then the footer.
func (t *typed[T, PT]) run(full <-chan []T) {
	var err error
	var base int64
	for rows := range full {
		if err == nil {
			if _, err = t.w.Write(rows); err == nil {
				err = endGroup(t.w, &base)
			}
			if err != nil {
				t.bad.Store(true)
			}
		}
		t.free <- rows[:0]
	}
	if err == nil {
		err = t.w.Close()
	}
	t.done <- err
}

func (t *typed[T, PT]) add(r *Record) {
	t.rows = t.rows[:len(t.rows)+1]
	PT(&t.rows[len(t.rows)-1]).fill(r)
}

func (t *typed[T, PT]) pending() int { return len(t.rows) }

// flush hands the filled rows to the writing goroutine; its error, once
// it has one, stops the writing (Close returns it).
func (t *typed[T, PT]) flush() error {
	if t.bad.Load() {
		return t.close()
	}
	if len(t.rows) > 0 {
		t.full <- t.rows
		t.rows = <-t.free
	}
	return nil
}

// close hands over the last rows, waits for the writing goroutine and
// returns its first error; the file is then complete (or failed).
func (t *typed[T, PT]) close() error {
	if t.full == nil {
		return t.err
	}
	if len(t.rows) > 0 && !t.bad.Load() {
		t.full <- t.rows
	}
	close(t.full)
	t.full = nil
	t.err = <-t.done
	return t.err
}

// typedWriter is what Writer asks of a typed writer.
type typedWriter interface {
	add(*Record)
	pending() int
	flush() error
	close() error
}
