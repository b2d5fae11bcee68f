package rpc

import (
	"time"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// A full index keeps most records slimmer still than compact (issue 28:
// compact records cost the TUI about 1 KB a frame): a compact record
// whose every value comes again from its envelope bytes, its place and
// its pairing (Slim) is kept by its host as a fixed-size index record and
// the envelope bytes, and given back compact by Restore, which Expand
// then makes whole; an asker still open too, its answer giving its host
// its pair (the session holds it for pairing: hold, letGo). The rest
// (transformed frames, records with findings) stay kept as records.

// Slim reports whether r, a numbered compact record of s, is given again
// by Restore from its Envelope and its Place, and so may be kept as those
// alone: a plain frame (no transform) with a known envelope type, no
// findings but its payload's, and for a Response a Request it was paired with whose ids it
// took. The host checks the Place (a pair's latency is the difference of
// the two times).
func (s *Session) Slim(r *Record) bool {
	if r == nil || !r.compact || r.light || r.raw != nil || r.Transform != nil || r.KeyFailed || r.capped != 0 ||
		len(r.Findings) != int(r.payloadNotes) || r.Envelope == nil || len(r.Envelope) != r.Len || !r.Type.Known() ||
		r.Msg != r.Type.String() || r.Time.Location() != time.UTC {
		return false
	}
	if r.Type == ulinkrpc.Response {
		return r.Pair != 0 && r.RPC.ServiceID != nil && r.HasLatency
	}
	return true
}

// Restore gives again the record Slim kept as env, its envelope bytes
// (which the record aliases), and p: as frame decoded it and Numbered
// named, paired and decoded its payload; without whole, compact as
// Numbered kept it (its Fields and Payload dropped). A reader may call it
// under the host's read lock: s's configuration is only read. p.Asker,
// a Response's Request, gives the Response its ids and names; p.Err (the
// bytes cut short) restores it whole, with Err as a finding.
func (s *Session) Restore(env []byte, p decode.Place, whole bool) *Record {
	r := &Record{N: p.N, Frame: p.Frame, Time: p.Time, Conn: s.conn, Dir: p.Dir, Transport: s.cfg.Transport,
		Len: len(env), Msg: "Unknown", Offset: p.Offset, Envelope: env, Pair: p.Pair, Latency: p.Latency,
		HasLatency: p.HasLatency}
	e, _ := ulinkrpc.DecodeEnvelope(env)
	r.Type = e.Type
	if e.Type.Known() {
		r.Msg = e.Type.String()
	}
	s.envValues(&r.RPC, &e, nil)
	if a, ok := p.Asker.(*Record); ok && e.Type == ulinkrpc.Response {
		r.RPC.ServiceID, r.RPC.MethodID = a.RPC.ServiceID, a.RPC.MethodID
		r.RPC.Service, r.RPC.Method = a.RPC.Service, a.RPC.Method
	}
	whole = whole || p.Err != nil
	if !whole && p.NoFindings {
		r.compact = true
		return r
	}
	if fs, _ := s.decodeAgain(r, !whole); len(fs) > 0 {
		r.Findings = append([]dissect.Finding(nil), fs...)
		r.payloadNotes = int32(len(fs))
	}
	if p.Err != nil {
		r.Findings = append(r.Findings, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed,
			Text: termsafe.Escape(p.Err.Error()), Bit: -1})
	}
	if !whole {
		r.shrink()
	}
	return r
}

// FileOffset is the capture file offset of r's frame (after its length
// prefix) when its bytes lie in one run of the file (Stamp.InFile): a host
// that reads the file again may point at them instead of keeping them.
func (r *Record) FileOffset() (int64, bool) { return r.file, r.inFile && !r.light }

// rpcValues hold what an RPC's pointers that envRPC sets point at, made
// in one allocation a record instead of one a value (issue 28: they were
// most of what the decoding goroutine of `dump --json` allocated).
type rpcValues struct {
	requestID           uint32
	serviceID, methodID int32
	statusCode          int
	status              string
	ticks               int64
}

// valuesChunk is how many records' rpcValues a compact session makes in
// one allocation (issue 28: one a frame was most of what a full index
// still allocated). A chunk lives while a record it gave values to does:
// at most valuesChunk-1 records' values kept beside one kept record.
const valuesChunk = 8

// lazyChunk is valuesChunk for a Lazy session, whose records its host
// prints and hands back within a few batches: one allocation per 64
// frames, not one a frame (the most the feeder of `dump --json` still
// allocated).
const lazyChunk = 64

// envRPC sets the rpc object's values that env alone gives (apply's,
// without the pairing): the ids, status, error and ticks, and the names
// of a Request's or Push's ids. It returns a Request's or Push's contract
// method, nil for none. A compact or Lazy session's values come from its
// chunk (valuesChunk, lazyChunk): it is the feeder's alone.
func (s *Session) envRPC(p *RPC, env *ulinkrpc.Envelope) *ulinkrpc.Method {
	if !s.compact && !s.cfg.Lazy || !env.Type.Known() {
		return s.envValues(p, env, nil)
	}
	if len(s.vals) == 0 {
		n := valuesChunk
		if !s.compact {
			n = lazyChunk
		}
		s.vals = make([]rpcValues, n)
	}
	v := &s.vals[0]
	s.vals = s.vals[1:]
	return s.envValues(p, env, v)
}

// envValues is envRPC with v, zero, for the values; nil makes them.
func (s *Session) envValues(p *RPC, env *ulinkrpc.Envelope, v *rpcValues) *ulinkrpc.Method {
	switch env.Type {
	case ulinkrpc.Request, ulinkrpc.Push, ulinkrpc.Response:
		if v == nil {
			v = new(rpcValues)
		}
	case ulinkrpc.KeepAlivePing, ulinkrpc.KeepAlivePong:
		if v == nil {
			p.Ticks = ptr(env.Ticks)
			return nil
		}
	}
	switch env.Type {
	case ulinkrpc.Request, ulinkrpc.Push:
		v.requestID, v.serviceID, v.methodID = env.RequestID, env.ServiceID, env.MethodID
		if env.Type == ulinkrpc.Request {
			p.RequestID = &v.requestID
		}
		p.ServiceID, p.MethodID = &v.serviceID, &v.methodID
		if s.cfg.Contracts == nil {
			return nil
		}
		svc, m := s.cfg.Contracts.Lookup(env.Type, env.ServiceID, env.MethodID)
		if svc != nil {
			p.Service = ptr(svc.Name)
		}
		if m != nil {
			p.Method = ptr(m.Name)
		}
		return m
	case ulinkrpc.Response:
		v.requestID, v.statusCode, v.status = env.RequestID, int(env.Status), env.Status.String()
		p.RequestID, p.StatusCode, p.Status = &v.requestID, &v.statusCode, &v.status
		if env.HasError {
			p.Error = ptr(env.Error)
			if !utf8.ValidString(env.Error) {
				p.ErrorRaw = []byte(env.Error)
			}
		}
	case ulinkrpc.KeepAlivePing, ulinkrpc.KeepAlivePong:
		v.ticks = env.Ticks
		p.Ticks = &v.ticks
	}
	return nil
}
