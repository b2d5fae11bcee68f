package rpc

import (
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// A host that keeps every record for as long as the capture is open (a
// full index: the TUI) asks its sessions to keep them compact (issue 28:
// every record kept with its decoded tree cost about 2.5 KB a frame, and
// issue 29: a gzip frame kept its inflated envelope, up to max_inflate,
// for good). Once a compact session's record is numbered and paired, its
// Fields, TransformFields and Payload are dropped, and a transformed
// frame keeps the frame as on the wire instead of its envelope (for a
// gzip frame: the compressed bytes). What stays is what no decoding
// gives again: the rpc object's values (the names and the ids a Response
// takes from its Request), the pairing, the findings and the frame's
// place. Expand decodes the rest again from the bytes when the record is
// shown, as the host does for an Unturned message.

// KeepCompact makes s keep its records compact once numbered (Expand
// gives them whole). A host calls it before the first frame.
func (s *Session) KeepCompact() { s.compact = true }

// Compacted reports whether r is kept compact (Expand gives it whole).
func (r *Record) Compacted() bool { return r.compact }

// shrink drops what Expand decodes again from a numbered record.
func (r *Record) shrink() {
	if r.light {
		return
	}
	r.compact = true
	r.Fields, r.TransformFields, r.Payload = nil, nil, nil
	if r.raw != nil {
		r.Envelope = nil
	}
}

// Expand is r whole: r itself when it is not compact, else a copy with
// the Envelope, TransformFields, Fields and Payload decoded again from
// its bytes, as frame and apply decoded them (the findings, the rpc
// object's values and the pairing are r's own). The copy is the caller's;
// s's configuration is only read, so a reader may call it while the
// session is fed elsewhere under the host's read lock.
func (s *Session) Expand(r *Record) *Record {
	if r == nil || !r.compact {
		return r
	}
	cp := *r
	cp.ownValues(r)
	cp.compact, cp.raw = false, nil
	cp.pooled, cp.ownEnvelope = false, false // shares r's slices: never reused
	if r.ownEnvelope {
		// r's own buffer, reused once r is handed back (a record kept
		// until its answer slims it): the copy keeps bytes of its own.
		cp.Envelope = append([]byte(nil), r.Envelope...)
	}
	if r.raw != nil {
		u, _ := ulinkrpc.Untransform(r.raw, s.cfg.Transform)
		if u.On || u.Encrypted {
			cp.TransformFields = cloneFields(u.Fields)
		}
		if u.Envelope != nil {
			cp.Envelope = append([]byte(nil), u.Envelope...)
		}
	}
	if cp.Envelope != nil {
		s.decodeAgain(&cp, false)
	}
	return &cp
}

// decodeAgain sets r's Fields and Payload from its Envelope as frame and
// apply decoded them, r's rpc object giving a Response's ids, and returns
// the payload's findings (ok false for a frame without one); bare decodes
// the payload for its findings alone, setting neither.
func (s *Session) decodeAgain(r *Record, bare bool) (findings []dissect.Finding, ok bool) {
	env, _ := ulinkrpc.DecodeEnvelope(r.Envelope)
	if !bare {
		r.Fields = env.Fields
	}
	p := &r.RPC
	switch env.Type {
	case ulinkrpc.Request:
		return s.payloadOf(r, &env, s.method(ulinkrpc.Request, env.ServiceID, env.MethodID), true, bare)
	case ulinkrpc.Push:
		return s.payloadOf(r, &env, s.method(ulinkrpc.Push, env.ServiceID, env.MethodID), true, bare)
	case ulinkrpc.Response:
		var m *ulinkrpc.Method
		if p.ServiceID != nil && p.MethodID != nil {
			m = s.method(ulinkrpc.Request, *p.ServiceID, *p.MethodID)
		}
		return s.payloadOf(r, &env, m, false, bare)
	}
	return nil, false
}

// payloadType is the DTO type of a payload of contract method m: a
// Request's and a Push's argument (arg), else a Response's reply; nil for
// none.
func (s *Session) payloadType(m *ulinkrpc.Method, arg bool) *ulinkrpc.DTO {
	if m == nil || s.types == nil {
		return nil
	}
	if arg {
		return s.types[m.Request]
	}
	return s.types[m.Reply]
}

// compactPayload is payload for a compact session's record: its payload's
// findings alone (ulinkrpc.PayloadFindings), as Restore gives them again.
// A record with no other findings takes its one finding (the note of a
// MemoryPack payload cut by its shape, mostly) as a list shared with the
// session's records of the same one (oneFinding): no list a record.
func (s *Session) compactPayload(r *Record, env *ulinkrpc.Envelope, m *ulinkrpc.Method, arg bool) {
	s.found = ulinkrpc.PayloadFindings(s.found[:0], env.Payload, env.PayloadOff,
		ulinkrpc.PayloadConfig{Serializer: s.cfg.Serializer, Type: s.payloadType(m, arg), Types: s.types})
	r.payloadNotes = int32(len(s.found))
	switch {
	case len(s.found) == 0:
	case len(s.found) == 1 && len(r.Findings) == 0:
		r.Findings = s.oneFinding(s.found[0])
	default:
		r.Findings = append(r.Findings, s.found...)
	}
}

// oneFinding is a list of f alone, shared with the records given the same
// one lately: full (its capacity its length), so that an append to it
// copies it, and never written in place.
func (s *Session) oneFinding(f dissect.Finding) []dissect.Finding {
	for _, l := range s.ones {
		if l != nil && l[0] == f {
			return l
		}
	}
	l := []dissect.Finding{f}[:1:1]
	s.ones[s.onesNext%uint8(len(s.ones))] = l
	s.onesNext++
	return l
}

// A full index keeps an open asker slim as it keeps its answer (issue
// 28: every Request was kept as a record until its Response, three map
// operations of its host's a pair), and hands it back at once (Release)
// while the session still holds it for pairing: it is pooled when the
// session lets go of it (done), answered or forgotten past MaxOpen.

// hold holds open asker r for pairing (open).
func (s *Session) hold(r *Record) {
	s.open.put(r)
	r.held = true
}

// letGo stops holding open asker n, rec when the caller knows its record
// (openList.drop), and returns its record (nil for none).
func (s *Session) letGo(rec *Record, n int) *Record {
	r := s.open.drop(rec, n)
	if r != nil {
		r.held = false
	}
	return r
}

// done pools r, an asker let go, when its host handed it back meanwhile.
func (s *Session) done(r *Record) {
	if r != nil && r.freed {
		r.freed = false
		s.recycle(r)
	}
}

// recycle takes back compact record r, which its host keeps slim, for the
// session's next frame (newRecord), or, an open asker, once it lets go of
// it (done); past maxFree into the shared pool.
func (s *Session) recycle(r *Record) {
	switch {
	case r.held:
		r.freed = true
	case len(s.free) < maxFree:
		s.free = append(s.free, r)
	default:
		records.Put(r)
	}
}

// newRecord is a record for frame to set whole: one recycled by a compact
// session, else pooled's.
func (s *Session) newRecord() *Record {
	if n := len(s.free); n > 0 && s.compact {
		r := s.free[n-1]
		s.free[n-1] = nil
		s.free = s.free[:n-1]
		return r
	}
	return pooled()
}
