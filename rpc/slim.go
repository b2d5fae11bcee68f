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
	s.envValues(&r.RPC, &e, &r.vals)
	if a, ok := p.Asker.(*Record); ok && e.Type == ulinkrpc.Response {
		r.askerIDs(a, true)
	}
	whole = whole || p.Err != nil
	if !whole && (p.NoFindings || p.Brief) {
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

// rpcValues hold what an RPC's pointers that envRPC sets point at: in
// the record itself (Record.vals) when its session reuses it, else made
// in one allocation a record, instead of one a value (issue 28: they were
// most of what the decoding goroutine of `dump --json` allocated). They
// hold no pointer (a status's name is statusName's), so that one made
// alone needs no heap bits and no collection scans it.
type rpcValues struct {
	requestID           uint32
	serviceID, methodID int32
	statusCode          int
	ticks               int64
}

// statusNames are the known statuses' names, which a Response's rpc
// object points at (statusName).
var statusNames = func() (t [ulinkrpc.StatusProtocolError + 1]string) {
	for i := range t {
		t[i] = ulinkrpc.Status(i).String()
	}
	return t
}()

// statusName is st's name as the rpc object's status points at it: one
// string a known status shares with every record, a new one else.
func statusName(st ulinkrpc.Status) *string {
	if st.Known() {
		return &statusNames[st]
	}
	return ptr(st.String())
}

// envRPC sets r's rpc object's values that env alone gives (apply's,
// without the pairing): the ids, status, error and ticks, and the names
// of a Request's or Push's ids. It returns a Request's or Push's contract
// method, nil for none. A record its session reuses (a compact or Lazy
// session's, Record.pooled) holds the values itself (Record.vals: issue
// 28, a chunk of them made every 8 frames was a twelfth of a full index's
// feeding at a million frames, and one every 64 frames of a Lazy session
// was two thirds of the bytes `dump --json` allocated); a copy handed
// out (Clone, Expand) points at its own (ownValues), and a Response its
// asker's ids are copied into (askerIDs).
func (s *Session) envRPC(r *Record, env *ulinkrpc.Envelope) *ulinkrpc.Method {
	if r.pooled {
		return s.envValues(&r.RPC, env, &r.vals)
	}
	return s.envValues(&r.RPC, env, nil)
}

// askerIDs gives r, a Response, the ids and names of its Request a: held
// in r's own values with own (a's values are a's own and a is reused
// once let go or written, a record of a compact or Lazy session, or r is
// one Restore made), else a's.
func (r *Record) askerIDs(a *Record, own bool) {
	p, q := &r.RPC, &a.RPC
	p.Service, p.Method = q.Service, q.Method
	if !own {
		p.ServiceID, p.MethodID = q.ServiceID, q.MethodID
		return
	}
	p.ServiceID, p.MethodID = nil, nil
	if q.ServiceID != nil {
		r.vals.serviceID, p.ServiceID = *q.ServiceID, &r.vals.serviceID
	}
	if q.MethodID != nil {
		r.vals.methodID, p.MethodID = *q.MethodID, &r.vals.methodID
	}
}

// ownValues makes cp, a copy of r, point at its own values where r points
// at r's (Record.vals), so that the copy stays as it is when r is reused.
func (cp *Record) ownValues(r *Record) {
	p := &cp.RPC
	if p.RequestID == &r.vals.requestID {
		p.RequestID = &cp.vals.requestID
	}
	if p.ServiceID == &r.vals.serviceID {
		p.ServiceID = &cp.vals.serviceID
	}
	if p.MethodID == &r.vals.methodID {
		p.MethodID = &cp.vals.methodID
	}
	if p.StatusCode == &r.vals.statusCode {
		p.StatusCode = &cp.vals.statusCode
	}
	if p.Ticks == &r.vals.ticks {
		p.Ticks = &cp.vals.ticks
	}
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
			p.Service = &svc.Name // the contracts' own, never written (names)
		}
		if m != nil {
			p.Method = &m.Name
		}
		return m
	case ulinkrpc.Response:
		v.requestID, v.statusCode = env.RequestID, int(env.Status)
		p.RequestID, p.StatusCode, p.Status = &v.requestID, &v.statusCode, statusName(env.Status)
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
