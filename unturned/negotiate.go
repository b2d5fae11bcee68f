package unturned

import (
	"fmt"

	"github.com/usmnscope/usmnscope/dissect"
)

// modeOf maps a mode value to its meaning through the profile (wire.md 6,
// modes).
func (p *Profile) modeOf(v uint32) NegotiateMode {
	for _, m := range [...]NegotiateMode{TellClientMissingListener, TellClientListenerID, TellServerMissingListener, RequestServerListenerID} {
		if w, _ := p.modeValue(m); w == v {
			return m
		}
	}
	return ModeUnknown
}

// modeDir is the direction each mode is sent in (wire.md 4.4).
var modeDir = [...]dissect.Dir{
	TellClientMissingListener: dissect.S2C,
	TellClientListenerID:      dissect.S2C,
	TellServerMissingListener: dissect.C2S,
	RequestServerListenerID:   dissect.C2S,
}

// negotiate decodes Negotiate Listener Details (wire.md 4.4). A mode sent the
// wrong way is decoded by its layout anyway, with a warning: the real reader
// would ignore it, but the fields are what a user needs to see. An unknown
// mode stops decoding.
func negotiate(m *decoder) {
	m.part = "usmn negotiate"
	n, p := &m.d.Negotiate, m.p
	from := m.r.Pos()
	n.Raw = m.bits("mode", p.NegotiateModeBitCount)
	if m.failed {
		return
	}
	n.Mode = p.modeOf(n.Raw)
	if n.Mode == ModeUnknown {
		m.finding(dissect.Warn, dissect.Malformed, from, fmt.Sprintf("usmn negotiate: mode: unknown value %d", n.Raw))
		if m.r.Remaining() > 0 {
			m.rest("undecoded")
		}
		return
	}
	if modeDir[n.Mode] != m.dir {
		m.finding(dissect.Warn, dissect.Protocol, from, fmt.Sprintf("usmn negotiate: mode: %s is not sent %s", n.Mode, m.dir))
	}
	n.IDBits = m.st.IDBits
	switch n.Mode {
	case TellClientMissingListener:
		n.ClientID = m.bits("Clientside_Listener_ID", 32)
	case TellClientListenerID:
		n.ClientID = m.bits("Clientside_Listener_ID", 32)
		n.ServerID = m.bits("Serverside_Listener_ID", n.IDBits)
		n.Version = m.bits("Listener_Version", 32)
		m.typeName(&n.TypeBytes, &n.Type)
	case TellServerMissingListener:
		n.ServerID = m.bits("Serverside_Listener_ID", n.IDBits)
	case RequestServerListenerID:
		n.ClientID = m.bits("Clientside_Listener_ID", 32)
		n.Version = m.bits("Listener_Version", 32)
		m.typeName(&n.TypeBytes, &n.Type)
	}
	m.end()
}
