package rpc

import (
	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// What a ULinkRPC connection offers its host beyond decode.Conn (decode's
// Labeled, Budgeted, Tallied, Reuser and Keeper): its Session's methods
// with the neutral types, so that the host names no ULinkRPC type.

var (
	_ decode.Labeled  = Hosted{}
	_ decode.Budgeted = Hosted{}
	_ decode.Tallied  = Hosted{}
	_ decode.Reuser   = Hosted{}
	_ decode.Keeper   = Hosted{}
)

// BudgetMax is the capture-wide ULinkRPC budget's size the session draws
// from (max_rpc_buffer), ulinkrpc.DefaultMaxBuffer without one.
func (h Hosted) BudgetMax() int {
	if m := h.Session.BudgetMax(); m > 0 {
		return m
	}
	return ulinkrpc.DefaultMaxBuffer
}

// Tables is the session's `rpc` table now.
func (h Hosted) Tables() decode.Tables {
	return &View{Tables: h.Session.Tables(), Transport: h.cfg.Transport, Records: h.Len()}
}

// Empty is the `rpc` table with nothing counted.
func (h Hosted) Empty() decode.Tables { return &View{Transport: h.cfg.Transport} }

// Tally adds records up again from nothing.
func (h Hosted) Tally() decode.Tally { return &tally{tr: h.cfg.Transport} }

// AppendTablesJSONOf appends the connection's `tables --json` entry with
// t, a View of this session's (AppendConnJSONOf).
func (h Hosted) AppendTablesJSONOf(dst []byte, t decode.Tables, findings int) []byte {
	v := t.(*View)
	return AppendConnJSONOf(dst, h.Session, &v.Tables, v.Records, findings)
}

// tally is a Tally as a decode.Tally.
type tally struct {
	t  Tally
	tr Transport
}

func (t *tally) Add(r decode.Record) { t.t.Add(r.(*Record)) }

func (t *tally) Tables(records int) decode.Tables {
	return &View{Tables: t.t.Tables(), Transport: t.tr, Records: records}
}

// Recycle hands a light record back (Session.Recycle).
func (h Hosted) Recycle(r decode.Record) { h.Session.Recycle(r.(*Record)) }

// Shed drops an open asker's bytes (Session.Shed).
func (h Hosted) Shed(r decode.Record) { h.Session.Shed(r.(*Record)) }

// Expand is r whole (Session.Expand).
func (h Hosted) Expand(r decode.Record) decode.Record { return h.Session.Expand(r.(*Record)) }

// Compacted reports whether r is kept compact.
func (h Hosted) Compacted(r decode.Record) bool { return r.(*Record).compact }

// Keep gives a compact plain record's envelope bytes, which Restore
// restores it from, and its frame's file offset when they lie in one run
// of the capture file (masked there: a client's WebSocket frame): not for
// a light record, a transformed frame or an envelope past 64 KiB.
func (h Hosted) Keep(dr decode.Record) (b []byte, file int64, inFile, masked, ok bool) {
	r := dr.(*Record)
	if r.light || !r.compact || r.Envelope == nil || len(r.Envelope) > 0xFFFF {
		return nil, 0, false, false, false
	}
	f, in := r.FileOffset()
	in = in && r.Transform == nil && len(r.Envelope) == r.Len
	return r.Envelope, f, in, in && r.masked, true
}

// Rebase makes r's envelope b, which is its host's: the buffer r owned is
// not reused with it.
func (h Hosted) Rebase(dr decode.Record, b []byte) {
	r := dr.(*Record)
	r.Envelope, r.ownEnvelope = b, false
}

// Slim reports whether r may be kept as its envelope and a Place
// (Session.Slim), with its stream offset and whether it is a Response.
func (h Hosted) Slim(dr decode.Record) (offset int64, answer, ok bool) {
	r := dr.(*Record)
	if !h.Session.Slim(r) {
		return 0, false, false
	}
	return r.Offset, r.Type == ulinkrpc.Response, true
}

// Restore is Session.Restore.
func (h Hosted) Restore(env []byte, p decode.Place, whole bool) decode.Record {
	return h.Session.Restore(env, p, whole)
}
