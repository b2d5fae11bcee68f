package render

import (
	"encoding/hex"
	"fmt"
	"io"
	"net/netip"
	"strings"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
)

// ParseHex reads hex digits, ignoring spaces, colons, and 0x prefixes, so
// that both `8c 00 00` and `0x8c0000` paste straight in (`bits`).
func ParseHex(args []string) ([]byte, error) {
	var b strings.Builder
	for _, a := range args {
		for _, w := range strings.FieldsFunc(a, func(r rune) bool { return r == ' ' || r == ':' || r == ',' || r == '\t' || r == '\n' || r == '\r' }) {
			w = strings.TrimPrefix(strings.TrimPrefix(w, "0x"), "0X")
			b.WriteString(w)
		}
	}
	s := b.String()
	data, err := hex.DecodeString(s)
	if err != nil {
		if ie, ok := err.(hex.InvalidByteError); ok {
			return nil, fmt.Errorf("bits: %q is not a hex digit", rune(ie))
		}
		return nil, fmt.Errorf("bits: odd number of hex digits (%d)", len(s))
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("bits: no hex bytes given")
	}
	return data, nil
}

// Pasted is one message pasted as bytes (`bits`): decoded as Paste says,
// its enum read Widened or not.
type Pasted struct {
	session.Paste
	Widened bool
}

// Decode decodes data as p says and gives the hint WidthHint gives
// about it (empty: none).
func (p Pasted) Decode(data []byte) (m *session.Message, hint string) {
	m = p.One(data, p.Widened)
	return m, WidthHint(m, p.One(data, !p.Widened), p.Widened)
}

// Write writes m, which Decode gave, to out: one JSON dump record
// (asJSON) or the bit-level view (Bits).
func (p Pasted) Write(out io.Writer, m *session.Message, asJSON bool) error {
	if asJSON {
		// A pasted message has no capture around it. The record still
		// follows outputs.md: it is message 1, and its connection is the
		// unspecified address pair, which parses like any other "conn"
		// (a zero Conn would print "invalid AddrPort").
		m.N = 1
		m.Conn = pastedConn
		return m.WriteJSON(out)
	}
	Bits(out, m, p.IDBits)
	return nil
}

// WidthHint says, when the other enum width (wire.md 4.2) explains the
// bytes better, what they decode as under it (issue 16: `bits 51 02` read
// vanilla is a ReadyToConnect, read widened the USMN invoke it was): the
// other width gives a USMN message and the asked one does not, or the asked
// one is widened and gives no known message while vanilla does. A pasted
// message has no handshake to tell the width, so this is a hint on stderr,
// never a change of what was asked.
func WidthHint(m, other *session.Message, widened bool) string {
	if hasError(other) || isUSMN(m) {
		return ""
	}
	known := other.Known()
	switch {
	case !widened && isUSMN(other):
		return fmt.Sprintf("read widened (--widened: both peers run USMN), these bytes decode as %s; read vanilla they are %s", describe(other), describe(m))
	case widened && !m.Known() && known:
		return fmt.Sprintf("read vanilla (without --widened), these bytes decode as %s; read widened they are %s", describe(other), describe(m))
	}
	return ""
}

// describe is a message's name with its widened mark and summary, as the
// first lines of bits print it.
func describe(m *session.Message) string {
	if s := Summary(m); s != "" {
		return MessageName(m) + ": " + s
	}
	return MessageName(m)
}

func isUSMN(m *session.Message) bool { return m.Listens() }

func hasError(m *session.Message) bool {
	w, ok := m.Worst()
	return ok && w >= dissect.Error
}

// pastedConn is the "conn" of a bits --json record: 0.0.0.0:0-0.0.0.0:0.
var pastedConn = dissect.Conn{
	Client: netip.AddrPortFrom(netip.IPv4Unspecified(), 0),
	Server: netip.AddrPortFrom(netip.IPv4Unspecified(), 0),
}
