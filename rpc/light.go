package rpc

import (
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// A light session (Config.Light) decodes what `tables` prints and no more
// (issue 15: a million frames in a fraction of tshark's time). Each frame
// is read only as far as the tables go (ulinkrpc.DecodeBrief: the
// envelope's type, ids, status, error flag and ticks, its length and the
// transform classification, in one pass and without allocating for a
// plain frame), into a light record: the Record's Frame, Time, Conn, Dir,
// Transport, Len, Offset and Type, with no fields, payload, envelope copy,
// RPC names or findings. It is handed to the host (or queued) as a full
// record is, numbered in the same order, and paired by the same rules as
// apply's (ulinkrpc.md 5: Pair, Latency), then counted in the Tally and
// the classification notes; the Tables, the connection findings and Len
// are a full session's (TestLightSame). Only the askers open for pairing
// are kept (in s.reqs, s.pings and the Tally's pending Requests, which
// name the pending note); a numbered light record goes back to the
// session once its host is done with it (Recycle), so that a steady light
// session allocates no record per frame.

// maxFree bounds the light records kept for reuse.
const maxFree = 64

// lightFrame reads one frame of a light session into a light record and
// hands it over (or queues it) as frame does.
func (s *Session) lightFrame(d dissect.Dir, frame []byte, info ulinkrpc.FrameInfo, at Stamp) {
	var r *Record
	if n := len(s.free); n > 0 {
		r = s.free[n-1]
		s.free[n-1] = nil
		s.free = s.free[:n-1]
	} else {
		r = new(Record)
	}
	// A light record has only these set (numberedLight adds N and the
	// pairing), so a reused one needs no clearing beyond them.
	r.Frame, r.Time, r.Conn, r.Dir, r.Transport = at.Frame, at.Time, s.conn, d, s.cfg.Transport
	r.Len, r.Offset, r.light = len(frame), info.Offset, true
	r.Pair, r.Latency, r.HasLatency = 0, 0, false
	r.brief = ulinkrpc.DecodeBrief(frame, s.cfg.Transform)
	// As frame: the type of an envelope recovered, 0 without one.
	r.Type = r.brief.Type
	if s.cfg.Yield != nil {
		s.cfg.Yield(r, at)
		return
	}
	s.queue = append(s.queue, r)
}

// Recycle hands back a numbered light record once the host keeps it no
// more (nor reads it again), or a compact one a full index keeps slim:
// the session's next frame reuses it. Other records, and a light one
// handed back already, are left alone.
func (s *Session) Recycle(r *Record) {
	if r != nil && r.compact && r.pooled {
		s.recycle(r) // kept slim by a full index (compact.go)
		return
	}
	if r == nil || !r.light || r.N == 0 || len(s.free) >= maxFree {
		return
	}
	r.N = 0 // handed back: a second Recycle is a no-op
	s.free = append(s.free, r)
}

// Shed drops the bytes of r, a record of this session its host has
// handed out for good (a streaming host: printed, never read again), which
// the session may still hold as an open asker until its answer: pairing
// reads only its number, time and rpc ids. Without it every unanswered
// Request kept its envelope, up to max_inflate each, for as long as it
// stayed open (issue 29: 256 Requests each inflating to 1 MiB held 300 MB
// in dump). A light record is left to Recycle.
func (s *Session) Shed(r *Record) {
	if r == nil || r.light || !s.Open(r) {
		// A record the session holds no more is not written again: its
		// host's readers may hold it without a copy (session's readable).
		return
	}
	r.Envelope, r.Fields, r.TransformFields, r.Payload = nil, nil, nil, nil
}

// Light reports whether s is a light session (Config.Light).
func (s *Session) Light() bool { return s.cfg.Light }

// Light reports whether r is a light record (Config.Light).
func (r *Record) Light() bool { return r.light }

// numberedLight is Numbered for a light record: classified, paired by
// apply's rules and counted.
func (s *Session) numberedLight(r *Record) {
	s.tally.records++
	if s.cfg.Transform.Mode == ulinkrpc.Auto {
		s.countClass(r.brief.Class, r)
	}
	if !r.brief.OK {
		return
	}
	b, d, t := &r.brief.Head, r.Dir, &s.tally
	switch b.Type {
	case ulinkrpc.Request:
		m := t.methods[ids(b.ServiceID, b.MethodID)]
		if m == nil {
			svc, name := s.names(ulinkrpc.Request, b.ServiceID, b.MethodID)
			m = t.newMethod(b.ServiceID, b.MethodID, svc, name)
		}
		// A Request forgotten past MaxOpen stays pending in the tally, as
		// a full session's does.
		s.reqs.Ask(keyOf(d, b.RequestID), dissect.Ask{N: r.N, Time: r.Time}, nil) // a light record is reused
		t.request(r.N, b.RequestID, m)
	case ulinkrpc.Response:
		if q, ok := s.reqs.Latest(keyOf(1-d, b.RequestID)); ok {
			a := q.a
			r.Pair, r.Latency, r.HasLatency = a.N, r.Time.Sub(a.Time), true
			t.response(a.N, nil, r.Latency, b.Status, b.HasError)
		}
	case ulinkrpc.Push:
		if p := t.pushes[ids(b.ServiceID, b.MethodID)]; p != nil {
			p.Count++
			break
		}
		svc, name := s.names(ulinkrpc.Push, b.ServiceID, b.MethodID)
		t.push(b.ServiceID, b.MethodID, svc, name)
	case ulinkrpc.KeepAlivePing:
		s.pings.Ask(pingKey{d, b.Ticks}, dissect.Ask{N: r.N, Time: r.Time})
		t.pings++
	case ulinkrpc.KeepAlivePong:
		a, ok := s.pings.Oldest(pingKey{1 - d, b.Ticks})
		if !ok {
			a, ok = s.pings.OldestWhere(func(k pingKey) bool { return k.dir == 1-d })
		}
		if ok {
			r.Pair, r.Latency, r.HasLatency = a.N, r.Time.Sub(a.Time), true
			t.pong(r.Latency)
		}
	}
}

// names are the contract names of a Request's or Push's ids, nil when
// unknown: name's, without a record to set them on.
func (s *Session) names(t ulinkrpc.FrameType, sid, mid int32) (svc, m *string) {
	if s.cfg.Contracts == nil {
		return nil, nil
	}
	sv, me := s.cfg.Contracts.Lookup(t, sid, mid)
	if sv != nil {
		svc = &sv.Name
	}
	if me != nil {
		m = &me.Name
	}
	return svc, m
}

// askName is the method name of open Request n for its pending note: from
// its record, or in a light session from its tally entry.
func (s *Session) askName(n int) (string, bool) {
	if r := s.open.find(n); r != nil {
		return r.methodName(), true
	}
	p, ok := s.tally.pending.find(n)
	if !ok || !s.cfg.Light {
		return "", false
	}
	return methodText(&p.ServiceID, &p.MethodID, p.m.Service, p.m.Method), true
}
