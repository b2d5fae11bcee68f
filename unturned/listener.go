package unturned

import "github.com/usmnscope/usmnscope/dissect"

// invoke decodes the Invoke Message Listener header (wire.md 4.3) and bounds
// the listener payload, which runs from the end of the header to the end of
// the message, trailing pad bits included. Zero-width IDs are recorded as
// fields with 0 bits (outputs.md).
func invoke(m *decoder) {
	m.part = "usmn invoke header"
	h, p := &m.d.Invoke, m.p
	if m.dir == dissect.S2C {
		h.HasDefinition = m.flag("Has_Listener_Definition")
		h.IDBits = m.st.IDBits
		if h.HasDefinition {
			// A definition's own Listener_ID uses the count it carries.
			h.IDBits = int(m.bits("Serverside_ID_Bit_Count", p.IDBitCountBitCount))
		}
		h.ServerID = m.bits("Listener_ID", h.IDBits)
		if h.HasDefinition {
			m.definition(&h.TypeBytes, &h.Type, &h.Version)
		}
	} else {
		h.HasClientID = m.flag("Has_Client_ID")
		h.IsClientID = h.HasClientID
		if h.HasClientID {
			h.HasDefinition = m.flag("Has_Listener_Definition")
			h.ClientID = m.bits("Clientside_Listener_ID", 32)
			if h.HasDefinition {
				m.definition(&h.TypeBytes, &h.Type, &h.Version)
			}
		} else {
			h.IDBits = m.st.IDBits
			h.ServerID = m.bits("Serverside_Listener_ID", h.IDBits)
		}
	}
	if m.failed {
		return
	}
	d := m.d
	d.PayloadBit, d.PayloadBits = m.r.Pos(), m.r.Remaining()
	if m.spans != nil {
		m.r.Skip(d.PayloadBits)
		m.spans.Add("payload", d.PayloadBit, &m.r, nil)
	}
}

// definition reads Listener_Type_Name, then Listener_Version: the invoke
// header's order (wire.md 4.3; negotiate has version first).
func (m *decoder) definition(name *[]byte, s *string, version *uint32) {
	m.typeName(name, s)
	*version = m.bits("Listener_Version", 32)
}

// typeName reads Listener_Type_Name as a String(type_name_bit_count). The
// bytes alias the message; the string is made only when spans are recorded,
// so the hot path does not allocate.
func (m *decoder) typeName(name *[]byte, s *string) {
	*name = m.str("Listener_Type_Name", m.p.TypeNameBitCount)
	if m.spans != nil && !m.spans.Bare {
		// Reuse the string str made for the span rather than convert again
		// (bare spans hold none: the string is then not made, as without).
		if l := m.spans.List; len(l) > 0 && l[len(l)-1].Name == "Listener_Type_Name" {
			*s, _ = l[len(l)-1].Value.(string)
		}
	}
}
