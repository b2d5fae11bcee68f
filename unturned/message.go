package unturned

import (
	"strconv"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

// decoder is the working state of one Decode call.
type decoder struct {
	p      *Profile
	dir    dissect.Dir
	st     State
	r      netpak.Reader
	spans  *netpak.Spans
	d      *Decoded
	part   string // message part named in error texts ("usmn invoke header")
	named  bool   // the enum was read: with part empty, the part is the kind's name
	failed bool   // an error finding was recorded for the reader's error
}

// partName is the message part error texts name: the one a body set, else
// the message's kind once its enum was read. Spelled only for a finding:
// naming every message's kind up front cost 2% of `tables --json`
// (issue 18).
func (m *decoder) partName() string {
	if m.part == "" && m.named {
		return m.d.Kind.String()
	}
	return m.part
}

// check reports whether the reader has no error. On the first error it
// records an error finding naming the message part and field, at the bit
// where the failed read started (outputs.md: error for a read past the end,
// invalid UTF-8, non-zero padding).
func (m *decoder) check(name string, from int) bool {
	err := m.r.Err()
	if err == nil {
		return true
	}
	if !m.failed {
		m.failed = true
		bit := from
		switch e := err.(type) {
		case *netpak.ShortError:
			bit = e.Bit
		case *netpak.BitError:
			bit = e.Bit
		}
		text := name + ": " + err.Error()
		if part := m.partName(); part != "" {
			text = part + ": " + text
		}
		m.d.Findings = append(m.d.Findings, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: text, Bit: bit})
	}
	return false
}

// defaultProfile serves callers that pass a nil profile.
var defaultProfile = Default()

// Decode decodes one SystemSockets message (without its 2-byte frame
// header) read in direction dir, in decoding context st (widened enum or not,
// Serverside_ID_Bit_Count in force), into d (d.Findings is appended to; the
// caller passes a reset Decoded). When spans is non-nil, every field read is
// recorded with outputs.md's names; when nil, nothing is recorded and
// decoding allocates nothing for a well-formed message.
//
// It never panics: a read that fails records an error finding naming the
// message part, field and bit, and what decoded before it is kept.
func Decode(p *Profile, dir dissect.Dir, st State, data []byte, spans *netpak.Spans, d *Decoded) {
	if p == nil {
		p = defaultProfile
	}
	m := &d.scratch
	// Set field by field, not as a literal copied whole (netpak.Reader.Reset).
	m.p, m.dir, m.st, m.spans, m.d = p, dir, st, spans, d
	m.part, m.named, m.failed = "", false, false
	m.r.Reset(data)
	m.readEnum()
	if m.failed {
		return
	}
	m.named = true
	bodies[d.Kind](m)
}

// bodies decodes what follows the enum, per kind (wire.md 3, 4.3, 4.4).
var bodies [kindCount]func(*decoder)

func init() {
	bodies = [kindCount]func(*decoder){
		KindUnknown:                  unknownBody,
		KindGetWorkshopFiles:         getWorkshopFiles,
		KindReadyToConnect:           longBody,
		KindAuthenticate:             longBody,
		KindServerBattlEye:           longBody,
		KindServerPingRequest:        emptyBody,
		KindServerPingResponse:       emptyBody,
		KindServerInvokeMethod:       invokeMethod,
		KindValidateAssets:           longBody,
		KindGracefullyDisconnect:     emptyBody,
		KindUpdateReliableBuffer:     legacyBuffer,
		KindUpdateUnreliableBuffer:   legacyBuffer,
		KindClientPingRequest:        emptyBody,
		KindClientPingResponse:       emptyBody,
		KindShutdown:                 textBody,
		KindPlayerConnected:          longBody,
		KindPlayerDisconnected:       playerDisconnected,
		KindDownloadWorkshopFiles:    downloadWorkshopFiles,
		KindVerify:                   emptyBody,
		KindAccepted:                 accepted,
		KindRejected:                 rejected,
		KindBanned:                   banned,
		KindKicked:                   textBody,
		KindAdmined:                  byteBody,
		KindUnadmined:                byteBody,
		KindClientBattlEye:           longBody,
		KindQueuePositionChanged:     byteBody,
		KindClientInvokeMethod:       invokeMethod,
		KindReplicateConfig:          longBody,
		KindInvokeMessageListener:    invoke,
		KindNegotiateListenerDetails: negotiate,
	}
}

// The field readers below read one field, record its span when spans are
// on, and turn a reader error into one finding. After an error they return
// zero values, so a body reads on and checks m.failed only where it matters.

func (m *decoder) bits(name string, n int) uint32 {
	from := m.r.Pos()
	v := m.r.Bits(n)
	if m.check(name, from) && m.spans != nil {
		m.spans.AddUint(name, from, &m.r, uint64(v))
	}
	return v
}

func (m *decoder) flag(name string) bool {
	from := m.r.Pos()
	v := m.r.Bit()
	if m.check(name, from) && m.spans != nil {
		m.spans.AddBool(name, from, &m.r, v)
	}
	return v
}

func (m *decoder) u64(name string) uint64 {
	from := m.r.Pos()
	v := m.r.UInt64()
	if m.check(name, from) && m.spans != nil {
		m.spans.AddUint(name, from, &m.r, v)
	}
	return v
}

// str reads a String whose length is lenBits wide; its span covers the empty
// flag, length, padding and bytes (outputs.md). Invalid UTF-8 is an error
// finding, but the bytes are kept (and recorded) so they can be shown escaped.
func (m *decoder) str(name string, lenBits int) []byte {
	from := m.r.Pos()
	b := m.r.StringBytes(lenBits)
	if m.spans != nil && (m.r.Err() == nil || b != nil) {
		m.spans.AddText(name, from, &m.r, b)
	}
	m.check(name, from)
	return b
}

// rest records the bits from the reader's position to the end as one field
// with a nil value, and returns its start and length.
func (m *decoder) rest(name string) (int, int) {
	from, n := m.r.Pos(), m.r.Remaining()
	m.r.Skip(n)
	if m.spans != nil {
		m.spans.Add(name, from, &m.r, nil)
	}
	return from, n
}

func (m *decoder) finding(s dissect.Severity, g dissect.Group, bit int, text string) {
	m.d.Findings = append(m.d.Findings, dissect.Finding{Severity: s, Group: g, Text: text, Bit: bit})
}

// end checks what follows a fully decoded body. The writer zero-fills the
// last byte (wire.md 1.1), so up to 7 zero bits are padding; non-zero
// padding is a warning (the reader would not notice it), and whole bytes
// beyond the body are shown as undecoded with a note.
func (m *decoder) end() {
	if m.failed {
		return
	}
	n := m.r.Remaining()
	if n == 0 {
		return
	}
	from := m.r.Pos()
	if n < 8 {
		v := m.r.Bits(n)
		if m.spans != nil {
			m.spans.AddUint("padding", from, &m.r, uint64(v))
		}
		if v != 0 {
			m.finding(dissect.Warn, dissect.Malformed, from, m.partName()+": padding: "+itoa(n)+" bits after the body are not zero")
		}
		return
	}
	m.rest("undecoded")
	m.finding(dissect.Note, dissect.Undecoded, from, m.partName()+": "+itoa(n)+" bits after the body are not decoded")
}

func emptyBody(m *decoder) { m.end() }

// unknownBody: an enum value neither vanilla nor the profile's (wire.md 3,
// 6). Nothing after it can be read with confidence.
func unknownBody(m *decoder) {
	m.finding(dissect.Warn, dissect.Malformed, 0, "enum: unknown "+m.dir.String()+" message value "+itoa(int(m.d.Enum.Value))+" ("+itoa(m.d.Enum.Bits)+" bits)")
	if m.r.Remaining() < 8 {
		m.end()
		return
	}
	from, n := m.rest("undecoded")
	m.finding(dissect.Note, dissect.Undecoded, from, "Unknown: "+itoa(n)+" bits after the enum are not decoded")
}

// longBody: ReadyToConnect, Authenticate, PlayerConnected, ReplicateConfig,
// ValidateAssets and the anti-cheat messages have long, build-specific field
// lists (wire.md 3); usmnscope shows them as undecoded bits rather than
// guess at a layout it cannot check.
func longBody(m *decoder) {
	if m.r.Remaining() < 8 {
		m.end() // only the writer's padding
		return
	}
	from, n := m.rest("undecoded")
	m.finding(dissect.Note, dissect.Undecoded, from, m.partName()+": "+itoa(n)+" bits after the enum are not decoded (build-specific fields)")
}

func itoa(n int) string { return strconv.Itoa(n) }
