package export

import (
	"encoding/hex"

	"github.com/parquet-go/parquet-go"
)

// plainRow is the outputs.md column set as a Go struct, in Columns'
// order, for parquet-go's typed writer: it maps struct fields straight to
// column buffers, where a parquet.Row is a value per column to shred (at
// a million records, about half the writer's time). A nullable column is
// a pointer, pointing at its value in the same row (v) when there is
// one. The payload map is kept from row to row in its slot, cleared and
// filled again; parquet-go writes a map's entries sorted by key.
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

	Listener       *string           `parquet:"listener,optional,dict"`
	ClientID       *int64            `parquet:"client_id,optional"`
	ServerID       *int64            `parquet:"server_id,optional"`
	Service        *string           `parquet:"service,optional,dict"`
	Method         *string           `parquet:"method,optional,dict"`
	ServiceID      *int32            `parquet:"service_id,optional"`
	MethodID       *int32            `parquet:"method_id,optional"`
	RequestID      *int64            `parquet:"request_id,optional"`
	Status         *string           `parquet:"status,optional,dict"`
	Pair           *int64            `parquet:"pair,optional"`
	LatencyNS      *int64            `parquet:"latency_ns,optional"`
	PayloadMessage *string           `parquet:"payload_message,optional,dict"`
	PayloadMethod  *string           `parquet:"payload_method,optional,dict"`
	Payload        map[string]string `parquet:"payload,optional"`
	Seen           []Seen            `parquet:"seen,optional,list"`
	OneWayNS       *int64            `parquet:"one_way_ns,optional"`
	MissingIn      []string          `parquet:"missing_in,optional,list"`

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
		w.Payload = v.payload
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

// typed is the typed writer of one row type: rows filled in place, handed
// to parquet-go a batch at a time.
type typed[T any, PT interface {
	*T
	fill(*Record)
}] struct {
	w    *parquet.GenericWriter[T]
	rows []T
}

func (t *typed[T, PT]) add(r *Record) {
	t.rows = t.rows[:len(t.rows)+1]
	PT(&t.rows[len(t.rows)-1]).fill(r)
}

func (t *typed[T, PT]) pending() int { return len(t.rows) }

func (t *typed[T, PT]) flush() error {
	_, err := t.w.Write(t.rows)
	t.rows = t.rows[:0]
	return err
}

func (t *typed[T, PT]) close() error { return t.w.Close() }

// typedWriter is what Writer asks of a typed writer.
type typedWriter interface {
	add(*Record)
	pending() int
	flush() error
	close() error
}

func newTyped[T any, PT interface {
	*T
	fill(*Record)
}](w *parquet.GenericWriter[T]) *typed[T, PT] {
	// Capacity batchRows, never grown: rows point into themselves.
	return &typed[T, PT]{w: w, rows: make([]T, 0, batchRows)}
}
