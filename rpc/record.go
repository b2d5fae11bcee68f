package rpc

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// Record is one ULinkRPC frame as outputs.md "ULinkRPC records" describes
// it. Pointers are the keys that may be null.
//
// Its fields lie in the order its readers take them (issue 28): pairing
// reads an asker, and its host a record it hands out, long after the
// record was made, so what they read sits in its first cache lines: the
// number, pairing and place in the first 64 bytes, the flags and the
// rpc ids and names in the next, the bytes and findings after them. The
// flags lie together, so that the record takes 512 bytes, eight cache
// lines, not 576 (TestRecordSize).
type Record struct {
	N     int
	Pair  int // n of the partner, 0 for none
	Frame int
	Len   int // the length prefix's value: the frame as on the wire
	Time  time.Time
	// openAt is 1 + the index of the record's entry among its session's
	// open askers (openList), 0 when it was never put there.
	openAt int32
	// payloadNotes is how many of Findings, the last, the payload's
	// decoding gave (Slim: decoding again gives them).
	payloadNotes int32

	Latency    time.Duration // on the answer of a pair
	Type       ulinkrpc.FrameType
	Dir        dissect.Dir
	HasLatency bool
	KeyFailed  bool // encrypted, and the HMAC failed under the key given
	Transport  Transport
	// held marks an open asker the session holds (open), freed one its
	// host handed back meanwhile (Release): the session pools it once it
	// lets it go (compact.go letGo).
	held  bool
	freed bool
	// light marks a light session's record (Config.Light, light.go),
	// brief its reading of the frame.
	light bool
	// pooled marks a record of a Lazy or compact session, which its host
	// hands back once it holds it no more (Release, lazy.go);
	// ownEnvelope says its Envelope is a buffer of its own, which the
	// session reuses with the record.
	pooled      bool
	ownEnvelope bool
	// compact marks a record a full index keeps compact (compact.go): its
	// Fields, TransformFields and Payload dropped once numbered, and for
	// a transformed frame its Envelope too, raw keeping the frame as on
	// the wire; Session.Expand decodes them again when it is shown.
	compact bool
	// bare marks a record of a Lazy session whose envelope fields are
	// left to be listed when it is read, lazy how to decode its payload,
	// which is left to then too (lazy.go).
	bare bool
	// inFile says file is the capture file offset of the frame's bytes
	// (after its length prefix): they lie in one run of the file
	// (FileOffset).
	inFile bool
	masked bool // the bytes at file are masked (Stamp.Masked)
	// class is how the transform layer classified the frame; classNoted
	// says Findings[0] is its note (ulinkrpc.ClassNote: the settings were
	// unknown), which classified turns into a connection finding.
	class      ulinkrpc.Class
	classNoted bool

	RPC RPC
	// vals hold what RPC points at in a record of a compact or Lazy
	// session or one Restore made (envRPC): a copy of the record points
	// at its own (ownValues).
	vals rpcValues

	Envelope  []byte // the envelope bytes after the transform (outputs.md `hex`); nil if unrecovered
	Findings  []dissect.Finding
	Msg       string     // Request … KeepAlivePong, Encrypted, Unknown
	Transform *Transform // nil when the layer is off (or classified plain)
	lazy      *lazyPayload

	// What the JSON of a bare record with a payload does not read
	// (appendBare) lies past the first five cache lines, which hold all
	// it reads: the encoding goroutine reads two lines fewer of a record
	// the feeder wrote (issue 28, TestRecordSize).
	Offset          int64 // stream offset of the frame's length prefix (per conv for KCP)
	Conn            dissect.Conn
	TransformFields []dissect.Field   // iv, ciphertext, hmac, flags, body: spans in the transformed frame
	Fields          []dissect.Field   // envelope fields, then payload.<member>
	Payload         *ulinkrpc.Payload // nil for KeepAlive frames, Encrypted and Unknown

	// env is the decoded envelope until the record is numbered and
	// applied (names, pairing, payload), nil when none was decoded (a
	// pointer: a record kept for good holds 136 bytes less, issue 28).
	env   *ulinkrpc.Envelope
	brief ulinkrpc.Brief
	// capped is the display cap the frame's gzip body inflated past
	// (ulinkrpc's Untransformed.Capped): the record keeps the compressed
	// body, and Tree inflates its start again when shown (Inflated).
	capped int
	raw    []byte
	file   int64 // see inFile
}

// Transform is outputs.md's `transform` object.
type Transform struct {
	Flags     *int
	Gzip      bool
	Encrypted bool
	Decrypted bool
}

// RPC is outputs.md's `rpc` object; nil pointers are null.
type RPC struct {
	RequestID  *uint32
	ServiceID  *int32
	MethodID   *int32
	Service    *string
	Method     *string
	StatusCode *int
	Status     *string
	Error      *string
	ErrorRaw   []byte // the error's bytes when they are not UTF-8 (`error_hex`)
	Ticks      *int64
}

func ptr[T any](v T) *T { return &v }

// methodName is "Service.Method" with numbers for what has no name.
func (r *Record) methodName() string {
	return methodText(r.RPC.ServiceID, r.RPC.MethodID, r.RPC.Service, r.RPC.Method)
}

// methodText is "Service.Method" with numbers for what has no name.
func methodText(sid, mid *int32, service, method *string) string {
	svc, m := "?", "?"
	if sid != nil {
		svc = "(" + strconv.Itoa(int(*sid)) + ")"
	}
	if mid != nil {
		m = "(" + strconv.Itoa(int(*mid)) + ")"
	}
	if service != nil {
		svc = *service
	}
	if method != nil {
		m = *method
	}
	return svc + "." + m
}

// EnvelopeLen is the length of the envelope recovered from the frame (0
// for none): len(Envelope), or a light record's reading of it. A host
// counts the bytes of the records it queues by it (session's order.go).
func (r *Record) EnvelopeLen() int {
	if r.light {
		return r.brief.Len
	}
	return len(r.Envelope)
}

// frame decodes one frame into a record, pairs it and keeps it.
// The record waits in the queue, unnumbered, until release.
func (s *Session) frame(d dissect.Dir, frame []byte, info ulinkrpc.FrameInfo, at Stamp) {
	if s.cfg.Light {
		s.lightFrame(d, frame, info, at)
		return
	}
	lazy := s.cfg.Lazy && !s.compact
	// A record its host hands back once written or kept slim (Release),
	// and the envelope buffer it owned.
	r := s.newRecord()
	var buf []byte
	if r.ownEnvelope {
		buf = r.Envelope[:0]
	}
	// Cleared, then set: a literal is made whole and then copied, which
	// cost twice the clearing (issue 28).
	*r = Record{}
	r.Frame, r.Time, r.Conn, r.Dir = at.Frame, at.Time, s.conn, d
	r.Transport, r.Len, r.Offset, r.Msg = s.cfg.Transport, len(frame), info.Offset, "Unknown"
	r.file, r.inFile, r.masked, r.pooled = at.File, at.InFile, at.Masked, lazy || s.compact
	defer func() {
		if s.cfg.Yield != nil {
			s.cfg.Yield(r, at)
		} else {
			s.queue = append(s.queue, r)
		}
		// r is not read here unless it waits unnumbered: once numbered,
		// its host may have handed it back already (Release) for another
		// frame, perhaps of another session.
		if s.envOf == r {
			// Not numbered yet: it waits with a copy of its own.
			e := s.env
			r.env, s.envOf = &e, nil
		}
	}()
	u, err := ulinkrpc.Untransform(frame, s.cfg.Transform)
	r.KeyFailed = err != nil && errors.Is(err, ulinkrpc.ErrAuth)
	r.Findings = u.Findings // Untransform's own: no copy (it is the class note, mostly)
	r.class, r.classNoted = u.Class, s.cfg.Transform.Mode == ulinkrpc.Auto
	r.capped = u.Capped
	if s.compact && (u.On || u.Encrypted) {
		r.raw = append([]byte(nil), frame...)
	}
	if u.On || u.Encrypted {
		t := &Transform{Gzip: u.Gzip, Encrypted: u.Encrypted, Decrypted: u.Decrypted}
		if u.Flags >= 0 {
			t.Flags = ptr(u.Flags)
		}
		r.Transform = t
		r.TransformFields = cloneFields(u.Fields)
	}
	if u.Envelope == nil {
		if u.Encrypted {
			r.Msg = "Encrypted"
		}
		return
	}
	// The frame aliases the stream's buffers: keep a copy (an inflated
	// envelope is already one), and decode the payload from the copy so
	// its values may alias it.
	r.Envelope = u.Envelope
	if !u.Owned {
		r.Envelope = append(buf, u.Envelope...)
		// A compact record's is no longer its own once it points into
		// its host's arena (Hosted.Rebase).
		r.ownEnvelope = lazy || s.compact
	}
	// The envelope is decoded into the session's scratch: a host numbers
	// the record (which applies it) before Yield returns, as a rule.
	if lazy || s.compact {
		// Its fields are listed when the record is read (lazy.go), or a
		// compact record's when Expand makes it whole.
		_ = ulinkrpc.DecodeEnvelopeValuesTo(&s.env, r.Envelope)
		r.bare = lazy
	} else {
		s.env, _ = ulinkrpc.DecodeEnvelope(r.Envelope)
	}
	r.Type = s.env.Type
	if s.env.Type.Known() {
		r.Msg = s.env.Type.String()
	}
	r.Fields = s.env.Fields
	if len(s.env.Findings) > 0 {
		r.Findings = append(r.Findings, s.env.Findings...)
	}
	r.env, s.envOf = &s.env, r
}

// maxQueued bounds the records held back while a direction resynchronises.
const maxQueued = 4096

// holding reports whether a direction's stream holds bytes it may yet
// yield as frames completed by earlier packets than those already queued.
func (s *Session) holding() bool {
	_, ok := s.Holding()
	return ok
}

// Holding reports whether a stream of the session holds bytes awaiting
// resynchronisation, which may yet end frames earlier than those already
// yielded (so does a WebSocket decoder, websocket.Decoder.Held, and a KCP
// reassembler with segments behind a missing sn, kcpheld.go), and the
// earliest Stamp.Seq among the chunks those bytes came in (a host's
// watermark, outputs.md "Ordering").
func (s *Session) Holding() (seq uint64, ok bool) {
	seq = ^uint64(0)
	for d := range s.sides {
		sd := &s.sides[d]
		seq, ok = s.held(sd.stream, seq, ok)
		if len(sd.convs) > 0 { // KCP's: not a map iterator an event for the others
			for _, f := range sd.convs {
				seq, ok = s.held(f, seq, ok)
			}
		}
		if sd.ws != nil && sd.ws.Held() > 0 {
			ok, seq = true, min(seq, s.wsSeq(sd))
		}
		if sd.kcp != nil {
			if first, held := sd.kcp.Holding(); held {
				ok, seq = true, min(seq, s.kcpSeq(sd, first))
			}
		}
	}
	return seq, ok
}

// held is Holding's test of one frame stream, called for every event a
// host feeds: a synchronised stream (the common case) answers first.
func (s *Session) held(f *framer, seq uint64, ok bool) (uint64, bool) {
	if f == nil || f.st.Synced() || f.st.Stats().Buffered == 0 {
		return seq, ok
	}
	if len(f.marks) > 0 {
		return min(seq, f.seq()), true
	}
	return min(seq, s.stamp.Seq), true
}

// Abandon stops waiting on every stream that is resynchronising: its
// buffered bytes get the end-of-stream chance to frame (yielded with their
// own stamps) and are skipped otherwise (reported), and the stream
// resynchronises on the bytes that follow. A KCP reassembler skips its
// gaps first (reported), and the messages behind them go into their frame
// streams with their own stamps. For a host whose queue of later records
// reached its bound (session.Index, order.go).
func (s *Session) Abandon() {
	if s.ended {
		return
	}
	for d := range s.sides {
		dir := dissect.Dir(d)
		ab := func(f *framer) {
			if f != nil && !f.st.Synced() && f.st.Stats().Buffered > 0 {
				s.dir = dir
				s.drain(dir, f.end(s.stamp, s.yield(dir)))
				f.st.StartUnsynced()
				s.drain(dir, f.st.Findings())
			}
		}
		if sd := &s.sides[d]; sd.kcp != nil {
			if _, held := sd.kcp.Holding(); held {
				s.dir = dir
				sd.kcp.Abandon("while other traffic waited for it", func(m kcp.Message) { s.kcpMessage(dir, m) })
				s.drain(dir, sd.kcp.Findings())
				sd.markKCP(s.stamp)
			}
		}
		if sd := &s.sides[d]; sd.ws != nil && sd.ws.Held() > 0 {
			s.dir = dir
			sd.ws.Abandon("while other traffic waited for it", func(ev websocket.Event) { s.wsEvent(dir, ev) })
			s.drain(dir, sd.ws.Findings())
			sd.markWS(s.stamp)
		}
		ab(s.sides[d].stream)
		for _, conv := range sortedConvs(s.sides[d].convs) {
			ab(s.sides[d].convs[conv])
		}
	}
	s.release(false)
}

// release numbers and pairs the queued records in capture order (the
// frame that completed each; stream order within one), unless a stream
// still holds bytes that may complete earlier frames (outputs.md
// "Ordering": numbers follow the packet that completed the message, and
// pairing follows the same order). force releases whatever is queued.
func (s *Session) release(force bool) {
	if len(s.queue) == 0 || !force && len(s.queue) < maxQueued && s.holding() {
		return
	}
	slices.SortStableFunc(s.queue, func(a, b *Record) int { return cmp.Compare(a.Frame, b.Frame) })
	for _, r := range s.queue {
		if r.light {
			s.Recycle(s.Numbered(r, s.number()))
			continue
		}
		s.records = append(s.records, r)
		s.Numbered(r, s.number())
	}
	clear(s.queue)
	s.queue = s.queue[:0]
}

// Numbered gives r, a record of this session, its number n and then names,
// pairs and decodes its payload (ulinkrpc.md 5 and 6), in number order: a
// host (Config.Yield) calls it for each record it was handed, in the order
// it numbers them, and the asker of a pair is always numbered before its
// answer. It returns r.
func (s *Session) Numbered(r *Record, n int) *Record {
	r.N = n
	if r.light {
		s.numberedLight(r)
		return r
	}
	s.classified(r)
	if r.env != nil {
		s.apply(r, r.env)
		if s.envOf == r {
			s.envOf = nil
		}
		r.env = nil
	}
	if s.cfg.Lazy && !s.compact {
		// Counted, not added up: a Lazy session's host prints its
		// records and never its tables (Config.Lazy).
		s.tally.records++
	} else {
		s.tally.Add(r)
	}
	if s.compact {
		r.shrink()
	}
	return r
}

// Open reports whether r is an asker (a Request or a KeepAlivePing) still
// waiting for its answer: neither answered nor forgotten past
// Config.MaxOpen.
func (s *Session) Open(r *Record) bool {
	return r.N != 0 && r.Pair == 0 && s.open.holds(r)
}

// apply names, pairs and decodes the payload of a numbered record.
func (s *Session) apply(r *Record, env *ulinkrpc.Envelope) {
	d := r.Dir
	switch env.Type {
	case ulinkrpc.Request:
		m := s.envRPC(r, env)
		s.payload(r, env, m, true)
		if a, ok := s.reqs.Ask(keyOf(d, env.RequestID), dissect.Ask{N: r.N, Time: r.Time}, r); ok {
			s.done(s.letGo(a.rec, a.a.N))
		}
		s.hold(r)
	case ulinkrpc.Response:
		s.envRPC(r, env)
		var m *ulinkrpc.Method
		if q, ok := s.reqs.Latest(keyOf(1-d, env.RequestID)); ok {
			a := q.a
			req := s.letGo(q.rec, a.N)
			s.link(req, r, a)
			if req != nil {
				r.askerIDs(req, req.pooled)
				if s.cfg.Contracts != nil {
					// Not read without: the asker's ids lie in memory
					// made long ago.
					m = s.method(ulinkrpc.Request, *req.RPC.ServiceID, *req.RPC.MethodID)
				}
			}
			s.done(req)
		} else {
			r.Findings = append(r.Findings, dissect.Finding{Severity: dissect.Note, Group: dissect.Sequence,
				Text: fmt.Sprintf("pairing: Response #%d with nothing to pair: its Request is not in the capture", env.RequestID), Bit: 8})
		}
		s.payload(r, env, m, false)
	case ulinkrpc.Push:
		m := s.envRPC(r, env)
		s.payload(r, env, m, true)
	case ulinkrpc.KeepAlivePing:
		s.envRPC(r, env)
		if a, ok := s.pings.Ask(pingKey{d, env.Ticks}, dissect.Ask{N: r.N, Time: r.Time}); ok {
			s.done(s.letGo(nil, a.N))
		}
		s.hold(r)
	case ulinkrpc.KeepAlivePong:
		s.envRPC(r, env)
		a, ok := s.pings.Oldest(pingKey{1 - d, env.Ticks})
		if !ok {
			a, ok = s.pings.OldestWhere(func(k pingKey) bool { return k.dir == 1-d })
		}
		if ok {
			ping := s.letGo(nil, a.N)
			s.link(ping, r, a)
			s.done(ping)
		} else {
			r.Findings = append(r.Findings, dissect.Finding{Severity: dissect.Note, Group: dissect.Sequence,
				Text: "pairing: KeepAlivePong with nothing to pair: no unanswered KeepAlivePing", Bit: 8})
		}
	}
}

// link pairs an answer with its asker.
func (s *Session) link(ask, ans *Record, a dissect.Ask) {
	ans.Pair, ans.Latency, ans.HasLatency = a.N, ans.Time.Sub(a.Time), true
	if ask != nil {
		ask.Pair = ans.N
	}
}

// method finds a contract method or push.
func (s *Session) method(t ulinkrpc.FrameType, sid, mid int32) *ulinkrpc.Method {
	if s.cfg.Contracts == nil {
		return nil
	}
	_, m := s.cfg.Contracts.Lookup(t, sid, mid)
	return m
}

// payload decodes the envelope's payload: a Request's and a Push's
// argument type is m.Request, a Response's is m.Reply.
func (s *Session) payload(r *Record, env *ulinkrpc.Envelope, m *ulinkrpc.Method, arg bool) {
	if s.compact {
		s.compactPayload(r, env, m, arg) // its findings alone (compact.go)
		return
	}
	fs, ok := s.payloadOf(r, env, m, arg, false)
	if !ok {
		return // lazy: decoded when read
	}
	r.Findings = append(r.Findings, fs...)
	r.payloadNotes = int32(len(fs))
}

// payloadOf decodes env's payload into r.Payload and appends its fields to
// r.Fields (payload's, and Expand's with the findings already kept), and
// returns its findings; bare decodes it for its findings alone (a compact
// record drops the rest: shrink). It leaves a Lazy session's payload to
// when the record is read, ok false.
func (s *Session) payloadOf(r *Record, env *ulinkrpc.Envelope, m *ulinkrpc.Method, arg, bare bool) (findings []dissect.Finding, ok bool) {
	typ := s.payloadType(m, arg)
	if s.cfg.Lazy && !s.compact {
		r.lazy = s.lazyPayloadOf(typ)
		return nil, false
	}
	if bare {
		return ulinkrpc.PayloadFindings(nil, env.Payload, env.PayloadOff, ulinkrpc.PayloadConfig{Serializer: s.cfg.Serializer, Type: typ, Types: s.types}), true
	}
	p := ulinkrpc.DecodePayload(env.Payload, env.PayloadOff, ulinkrpc.PayloadConfig{Serializer: s.cfg.Serializer, Type: typ, Types: s.types})
	kept := p
	r.Payload = &kept
	r.Fields = appendPayloadFields(r.Fields, p.Fields)
	return p.Findings, true
}

// appendPayloadFields appends a payload's fields to an envelope's: all but
// the payload's own root entry (payloadRoot).
func appendPayloadFields(dst, fs []dissect.Field) []dissect.Field {
	for _, f := range fs {
		if !payloadRoot(&f) {
			dst = append(dst, f)
		}
	}
	return dst
}

// payloadRoot reports whether f is a payload's own root entry, which the
// envelope's "payload" field already is.
func payloadRoot(f *dissect.Field) bool { return f.Name == "payload" }

func cloneFields(fs []dissect.Field) []dissect.Field {
	out := make([]dissect.Field, len(fs))
	for i, f := range fs {
		if b, ok := f.Value.([]byte); ok {
			f.Value = append([]byte(nil), b...)
		}
		out[i] = f
	}
	return out
}
