package ulinkrpc

import (
	"encoding/binary"
	"strconv"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
)

// MaxFrameLen is the largest frame and the largest envelope length field:
// 64 MiB (ulinkrpc.md 2 and 4; RpcEnvelopeCodec.MaxPayloadSize and
// LengthPrefix.DefaultMaxFrameSize in the real code).
const MaxFrameLen = 64 << 20

// FrameType is the envelope's first byte (ulinkrpc.md 4).
type FrameType uint8

const (
	Request       FrameType = 1
	Response      FrameType = 2
	Push          FrameType = 3
	KeepAlivePing FrameType = 4
	KeepAlivePong FrameType = 5
)

var frameTypeNames = [...]string{Request: "Request", Response: "Response", Push: "Push", KeepAlivePing: "KeepAlivePing", KeepAlivePong: "KeepAlivePong"}

func (t FrameType) String() string { return enum.Name(frameTypeNames[:], uint64(t)) }

// Known reports whether t is one of the five frame types.
func (t FrameType) Known() bool { return t >= Request && t <= KeepAlivePong }

// Status is a Response's status byte (ulinkrpc.md 4).
type Status uint8

const (
	StatusOk            Status = 0
	StatusNotFound      Status = 1
	StatusHandlerError  Status = 2 // "Exception" in older releases
	StatusOverloaded    Status = 3
	StatusBadRequest    Status = 4
	StatusProtocolError Status = 5
)

var statusNames = [...]string{"Ok", "NotFound", "HandlerError", "Overloaded", "BadRequest", "ProtocolError"}

func (s Status) String() string { return enum.Name(statusNames[:], uint64(s)) }

// Known reports whether s is one of the six status values.
func (s Status) Known() bool { return s <= StatusProtocolError }

// Envelope is one decoded frame (ulinkrpc.md 4). Which fields are set
// depends on Type; Fields lists every field read, in wire order, with its
// byte span as bits (8 × byte offset in the envelope) and Findings what was
// wrong. A frame that failed to decode keeps everything read before the
// failure.
type Envelope struct {
	Type       FrameType
	RequestID  uint32 // Request, Response
	ServiceID  int32  // Request, Push
	MethodID   int32  // Request, Push
	Status     Status // Response
	Payload    []byte // Request, Response, Push (aliases the input)
	PayloadOff int    // byte offset of Payload in the envelope
	HasError   bool   // Response
	Error      string // Response with HasError: the bytes exactly, possibly not UTF-8
	ErrorUTF8  bool   // Error is valid UTF-8
	Ticks      int64  // KeepAlivePing, KeepAlivePong: .NET UTC ticks

	Fields   []dissect.Field
	Findings []dissect.Finding
}

// envReader is a reader that records each read as a field of env, unless
// bare (DecodeEnvelopeValues).
type envReader struct {
	*reader
	env  *Envelope
	bare bool
}

// field records a read as a field; its callers ask listing first, so that
// a bare reader boxes no value (issue 28: the payload's and the request
// id's boxes were what a lazy record's decode allocated).
func (r envReader) field(name string, from int, v any) {
	r.env.Fields = append(r.env.Fields, dissect.Field{Name: name, Bit: 8 * (r.base + from), Bits: 8 * (r.pos - from), Value: v})
}

// listing reports whether reads are recorded as fields: not bare, and
// not failed.
func (r envReader) listing() bool { return r.err == nil && !r.bare }

func (r envReader) u32(name string) uint32 {
	from := r.pos
	v := r.u32be(name)
	if r.listing() {
		r.field(name, from, uint64(v))
	}
	return v
}

func (r envReader) i32(name string) int32 {
	from := r.pos
	v := int32(r.u32be(name))
	if r.listing() {
		r.field(name, from, int64(v))
	}
	return v
}

// length reads an i32 length and checks it against 0..MaxFrameLen and
// against what is left.
func (r envReader) length(name, of string) int {
	from := r.pos
	n := r.i32(name)
	if r.err != nil {
		return 0
	}
	if n < 0 || n > MaxFrameLen {
		r.fail(name, from, ErrInvalidLength, "invalid length %d (0..%d)", n, MaxFrameLen)
		return 0
	}
	if r.left() < int(n) {
		r.err = &Error{Layer: r.layer, Field: of, Offset: r.pos, Need: int(n), Have: r.left(), Err: ErrShort}
		return 0
	}
	return int(n)
}

func (r envReader) payload(n int) {
	r.env.PayloadOff = r.pos
	from := r.pos
	r.env.Payload = r.bytes("payload", n)
	if r.listing() {
		r.field("payload", from, r.env.Payload)
	}
}

func parseRequest(r *envReader) {
	r.env.RequestID = r.u32("request_id")
	r.env.ServiceID = r.i32("service_id")
	r.env.MethodID = r.i32("method_id")
	r.payload(r.length("length", "payload"))
}

func parseResponse(r *envReader) {
	r.env.RequestID = r.u32("request_id")
	from := r.pos
	r.env.Status = Status(r.u8("status"))
	if r.listing() {
		r.field("status", from, uint64(r.env.Status))
	}
	r.payload(r.length("length", "payload"))
	from = r.pos
	r.env.HasError = r.u8("has_error") != 0
	if r.listing() {
		r.field("has_error", from, r.env.HasError)
	}
	if !r.env.HasError || r.err != nil {
		return
	}
	n := r.length("error_length", "error")
	from = r.pos
	b := r.bytes("error", n)
	r.env.Error = string(b)
	r.env.ErrorUTF8 = utf8.Valid(b)
	if r.listing() {
		r.field("error", from, r.env.Error)
	}
}

func parsePush(r *envReader) {
	r.env.ServiceID = r.i32("service_id")
	r.env.MethodID = r.i32("method_id")
	r.payload(r.length("length", "payload"))
}

func parseKeepAlive(r *envReader) {
	from := r.pos
	r.env.Ticks = int64(r.u64be("ticks"))
	if r.listing() {
		r.field("ticks", from, r.env.Ticks)
	}
}

// DecodeEnvelope decodes one frame, which must be consumed exactly
// (ulinkrpc.md 4). The error is the first failure, an *Error wrapping
// ErrShort ("malformed"), ErrInvalidLength or ErrTrailing; it is also the
// first error finding. An unknown type byte is not an error (the real
// receiver ignores the frame): Type says so, a note is added and the rest of
// the frame is one raw "payload" field. An unknown status is a note;
// an error text that is not UTF-8 an error finding with no error returned.
func DecodeEnvelope(b []byte) (Envelope, error) {
	var fs []dissect.Field
	if len(b) > 0 && (FrameType(b[0]) == Request || FrameType(b[0]) == Response || FrameType(b[0]) == Push) {
		fs = make([]dissect.Field, 0, envelopeFields[b[0]]+payloadRoom)
	}
	return decodeEnvelope(b, fs, false)
}

// payloadRoom is the room DecodeEnvelope leaves after a call's fields for
// those its payload adds (rpc's Record.Fields): one allocation instead of
// growing from one (issue 28: the growth was a fifth of what `dump
// --json` allocated).
const payloadRoom = 6

// envelopeFields is how many fields a call of each type has when it
// decodes (a Response's error adds two more).
var envelopeFields = [...]int{Request: 6, Response: 6, Push: 5}

// DecodeEnvelopeValues is DecodeEnvelope without Fields: the values and
// findings, for a caller that lists the fields later, if at all (rpc's
// lazy records, issue 28), with no allocation for a plain frame.
func DecodeEnvelopeValues(b []byte) (Envelope, error) {
	if env, ok := EnvelopeExact(b); ok {
		return env, nil
	}
	return decodeEnvelope(b, nil, true)
}

// DecodeEnvelopeValuesTo is DecodeEnvelopeValues into *env, all of it set:
// a plain frame is read in place, not copied (rpc's sessions decode every
// frame into one Envelope).
func DecodeEnvelopeValuesTo(env *Envelope, b []byte) error {
	if exactInto(env, b, true) {
		return nil
	}
	var err error
	*env, err = decodeEnvelope(b, nil, true)
	return err
}

// EnvelopeExact is DecodeEnvelopeValues of a frame of a known type that is
// consumed exactly and whose lengths DecodeEnvelope accepts (headExact's
// test: the common case), read in one pass from ulinkrpc.md 4's fixed
// offsets, with the same values and findings; ok false, for every other
// frame, leaves it to DecodeEnvelopeValues. Its fields are where
// ulinkrpc.md 4 puts them (a writer of them need not list them: rpc's
// `dump --json`).
func EnvelopeExact(b []byte) (env Envelope, ok bool) {
	ok = exactInto(&env, b, true)
	return env, ok
}

// EnvelopeLayout is EnvelopeExact for a writer of the frame's fields from
// its bytes: without the error text, whose bytes end the frame (Error
// empty, ErrorUTF8 set), nor findings, so that it allocates nothing.
func EnvelopeLayout(b []byte) (env Envelope, ok bool) {
	ok = exactInto(&env, b, false)
	return env, ok
}

// exactInto sets all of *env to EnvelopeExact's reading of b, without
// text the error text and the findings, or leaves it untouched and
// returns false.
func exactInto(env *Envelope, b []byte, text bool) bool {
	var h Head
	if !headExact(b, &h) {
		return false
	}
	env.Type, env.RequestID, env.ServiceID, env.MethodID = h.Type, h.RequestID, h.ServiceID, h.MethodID
	env.Status, env.HasError, env.Ticks = h.Status, h.HasError, h.Ticks
	env.Payload, env.PayloadOff, env.Error, env.ErrorUTF8 = nil, 0, "", false
	env.Fields, env.Findings = nil, nil
	n := len(b)
	switch h.Type {
	case Request:
		env.PayloadOff, env.Payload = 17, b[17:n:n]
	case Push:
		env.PayloadOff, env.Payload = 13, b[13:n:n]
	case Response:
		end := 10 + int(binary.BigEndian.Uint32(b[6:]))
		env.PayloadOff, env.Payload = 10, b[10:end:end]
		if h.HasError {
			e := b[end+5:]
			env.ErrorUTF8 = utf8.Valid(e)
			if !text {
				break
			}
			env.Error = string(e)
		}
		if !text {
			break
		}
		if !env.Status.Known() {
			env.Findings = append(env.Findings, note(dissect.Protocol, 8*5, "envelope: unknown status %d", uint8(env.Status)))
		}
		if env.HasError && !env.ErrorUTF8 {
			env.Findings = append(env.Findings, errf(dissect.Malformed, 8*(n-len(env.Error)), "envelope: error: invalid UTF-8"))
		}
	}
	return true
}

// DecodeEnvelopeInto is DecodeEnvelope with its Fields appended to
// fields[:0], a buffer the caller reuses.
func DecodeEnvelopeInto(b []byte, fields []dissect.Field) (Envelope, error) {
	return decodeEnvelope(b, fields[:0], false)
}

// decodeEnvelope is DecodeEnvelope appending its fields to fs, or listing
// none when bare.
func decodeEnvelope(b []byte, fs []dissect.Field, bare bool) (Envelope, error) {
	env := Envelope{Fields: fs}
	r := envReader{reader: &reader{b: b, layer: "envelope"}, env: &env, bare: bare}
	from := r.pos
	env.Type = FrameType(r.u8("type"))
	if r.listing() {
		r.field("type", from, uint64(env.Type))
	}
	if r.err != nil {
		env.Findings = append(env.Findings, finding(r.err, 0))
		return env, r.err
	}
	if !env.Type.Known() {
		env.Findings = append(env.Findings, note(dissect.Protocol, 0, "envelope: unknown frame type %d: the receiver ignores the frame", uint8(env.Type)))
		if r.left() > 0 {
			r.payload(r.left())
		}
		return env, nil
	}
	// A switch, not a table of parsers: an indirect call would move the
	// reader and the Envelope to the heap (issue 28).
	switch env.Type {
	case Request:
		parseRequest(&r)
	case Response:
		parseResponse(&r)
	case Push:
		parsePush(&r)
	default:
		parseKeepAlive(&r)
	}
	if r.err == nil && r.left() > 0 {
		r.err = &Error{Layer: "envelope", Offset: r.pos, Err: ErrTrailing,
			Detail: env.Type.String() + ": " + strconv.Itoa(r.left()) + " trailing bytes"}
	}
	if r.err != nil {
		env.Findings = append(env.Findings, finding(r.err, 0))
		return env, r.err
	}
	if env.Type == Response && !env.Status.Known() {
		env.Findings = append(env.Findings, note(dissect.Protocol, 8*5, "envelope: unknown status %d", uint8(env.Status)))
	}
	if env.HasError && !env.ErrorUTF8 {
		env.Findings = append(env.Findings, errf(dissect.Malformed, 8*(len(b)-len(env.Error)), "envelope: error: invalid UTF-8"))
	}
	return env, nil
}

// Head is an envelope's values without its payload, fields and findings:
// what a table of calls, answers and keep-alives needs (`tables`, issue
// 15). Which are set depends on Type, as in Envelope.
type Head struct {
	Type      FrameType
	Status    Status
	HasError  bool
	RequestID uint32
	ServiceID int32
	MethodID  int32
	Ticks     int64
}

// Head returns the envelope's values.
func (e *Envelope) Head() Head {
	return Head{Type: e.Type, Status: e.Status, HasError: e.HasError, RequestID: e.RequestID, ServiceID: e.ServiceID, MethodID: e.MethodID, Ticks: e.Ticks}
}

// DecodeHead is Untransform then DecodeEnvelope for a caller that reads
// only the envelope's values: the same Head as DecodeEnvelope's Envelope
// (a frame that fails to decode keeps what was read before the failure),
// ok false when Untransform recovers no envelope. A plain frame (Mode Off,
// or Auto's first class: ulinkrpc.md 3) of a known type that is consumed
// exactly, the common case, is read in one pass from ulinkrpc.md 4's fixed
// offsets with no allocation; every other frame takes the long way.
func DecodeHead(frame []byte, cfg TransformConfig) (h Head, ok bool) {
	b := DecodeBrief(frame, cfg)
	return b.Head, b.OK
}

// Brief is DecodeBrief's reading of a frame: its Head and what a tally of
// frames needs beside it (rpc's light sessions for `tables`, issue 15).
type Brief struct {
	Head
	OK    bool  // Untransform recovered an envelope
	Class Class // Untransform's Class: the classification in Mode Auto (ulinkrpc.md 3)
	Len   int   // the envelope's length in bytes; 0 without one
}

// DecodeBrief is DecodeHead with Untransform's Class and the length of
// the envelope it recovers, read the same way: without allocating for a
// plain frame or one behind a flags byte 00.
func DecodeBrief(frame []byte, cfg TransformConfig) (b Brief) {
	if (cfg.Mode == Off || cfg.Mode == Auto && (cfg.Keys == nil || !encryptedShape(frame))) && headExact(frame, &b.Head) {
		// headExact is ParsesExactly's test: Auto classifies it plain.
		b.OK, b.Class, b.Len = true, ClassPlain, len(frame)
		return b
	}
	env, class, _ := untransformEnvelope(frame, cfg)
	b.Class = class
	if env == nil {
		return b
	}
	b.OK, b.Len = true, len(env)
	if !headExact(env, &b.Head) {
		e, _ := DecodeEnvelope(env)
		b.Head = e.Head()
	}
	return b
}

// headExact reads the Head of a frame of a known type that is consumed
// exactly (envelopeShape's test) and whose lengths DecodeEnvelope accepts;
// false leaves h to DecodeEnvelope.
func headExact(b []byte, h *Head) bool {
	n := len(b)
	if n == 0 || n > MaxFrameLen {
		return false
	}
	be := func(off int) uint32 { return binary.BigEndian.Uint32(b[off:]) }
	switch t := FrameType(b[0]); t {
	case Request:
		if n < 17 || int(int32(be(13))) != n-17 {
			return false
		}
		*h = Head{Type: t, RequestID: be(1), ServiceID: int32(be(5)), MethodID: int32(be(9))}
	case Push:
		if n < 13 || int(int32(be(9))) != n-13 {
			return false
		}
		*h = Head{Type: t, ServiceID: int32(be(1)), MethodID: int32(be(5))}
	case KeepAlivePing, KeepAlivePong:
		if n != 9 {
			return false
		}
		*h = Head{Type: t, Ticks: int64(binary.BigEndian.Uint64(b[1:]))}
	case Response:
		if n < 11 {
			return false
		}
		p := int(int32(be(6)))
		if p < 0 || p > n-11 {
			return false
		}
		at := 10 + p
		hasErr := b[at] != 0
		if !hasErr && at+1 != n || hasErr && (n-at-1 < 4 || int(int32(be(at+1))) != n-at-5) {
			return false
		}
		*h = Head{Type: t, RequestID: be(1), Status: Status(b[5]), HasError: hasErr}
	default:
		return false
	}
	return true
}

// ParsesExactly reports whether b is a complete, exactly consumed frame of a
// known type: the test that content detection and resynchronisation apply
// (ulinkrpc.md 1 and 2).
func ParsesExactly(b []byte) bool {
	if len(b) == 0 || !FrameType(b[0]).Known() {
		return false
	}
	return envelopeShape(b)
}

// envelopeShape checks the lengths of a known frame type without building
// fields.
func envelopeShape(b []byte) bool {
	be := func(off int) int {
		return int(int32(uint32(b[off])<<24 | uint32(b[off+1])<<16 | uint32(b[off+2])<<8 | uint32(b[off+3])))
	}
	n := len(b)
	switch FrameType(b[0]) {
	case Request:
		return n >= 17 && be(13) >= 0 && be(13) == n-17
	case Push:
		return n >= 13 && be(9) >= 0 && be(9) == n-13
	case KeepAlivePing, KeepAlivePong:
		return n == 9
	case Response:
		if n < 11 {
			return false
		}
		p := be(6)
		if p < 0 || p > n-11 {
			return false
		}
		at := 10 + p
		if b[at] == 0 {
			return at+1 == n
		}
		if n-at-1 < 4 {
			return false
		}
		e := be(at + 1)
		return e >= 0 && e == n-at-5
	}
	return false
}
