package unturned

import (
	"math/bits"

	"github.com/usmnscope/usmnscope/dissect"
)

// serverKinds maps EServerMessage values (C→S) to kinds, in the order of
// wire.md section 3.
var serverKinds = [...]Kind{
	0: KindGetWorkshopFiles,
	1: KindReadyToConnect,
	2: KindAuthenticate,
	3: KindServerBattlEye,
	4: KindServerPingRequest,
	5: KindServerPingResponse,
	6: KindServerInvokeMethod,
	7: KindValidateAssets,
	8: KindGracefullyDisconnect,
}

// clientKinds maps EClientMessage values (S→C) to kinds (wire.md 3). The
// 3.24 game has the first 18 of them (no ReplicateConfig); the profile's
// ClientMessageCount cuts the table.
var clientKinds = [...]Kind{
	0:  KindUpdateReliableBuffer,
	1:  KindUpdateUnreliableBuffer,
	2:  KindClientPingRequest,
	3:  KindClientPingResponse,
	4:  KindShutdown,
	5:  KindPlayerConnected,
	6:  KindPlayerDisconnected,
	7:  KindDownloadWorkshopFiles,
	8:  KindVerify,
	9:  KindAccepted,
	10: KindRejected,
	11: KindBanned,
	12: KindKicked,
	13: KindAdmined,
	14: KindUnadmined,
	15: KindClientBattlEye,
	16: KindQueuePositionChanged,
	17: KindClientInvokeMethod,
	18: KindReplicateConfig,
}

// vanillaKinds returns the vanilla enum table of direction dir in the
// profile's game version.
func (p *Profile) vanillaKinds(dir dissect.Dir) []Kind {
	if dir == dissect.C2S {
		return serverKinds[:p.ServerMessageCount()]
	}
	return clientKinds[:p.ClientMessageCount()]
}

// Kind maps an enum value read in direction dir to the message kind: the
// vanilla values of wire.md 3 first, then the profile's internal USMN
// numbers (wire.md 6). Anything else is KindUnknown.
func (p *Profile) Kind(dir dissect.Dir, v uint32) Kind {
	if t := p.vanillaKinds(dir); v < uint32(len(t)) {
		return t[v]
	}
	invoke, negotiate := p.ServerInvokeListener, p.ServerNegotiate
	if dir == dissect.S2C {
		invoke, negotiate = p.ClientInvokeListener, p.ClientNegotiate
	}
	switch v {
	case invoke:
		return KindInvokeMessageListener
	case negotiate:
		return KindNegotiateListenerDetails
	}
	return KindUnknown
}

// MessageValue is the inverse of Kind: the enum value of kind k in direction
// dir, and false when k is not sent that way (or not in this game version).
func (p *Profile) MessageValue(dir dissect.Dir, k Kind) (uint32, bool) {
	switch k {
	case KindInvokeMessageListener:
		if dir == dissect.C2S {
			return p.ServerInvokeListener, true
		}
		return p.ClientInvokeListener, true
	case KindNegotiateListenerDetails:
		if dir == dissect.C2S {
			return p.ServerNegotiate, true
		}
		return p.ClientNegotiate, true
	}
	for v, kk := range p.vanillaKinds(dir) {
		if kk == k {
			return uint32(v), true
		}
	}
	return 0, false
}

// MethodBits is the width of an InvokeMethod index in direction dir:
// CountBits of the method count (wire.md 3: client_methods for S→C,
// server_methods for C→S).
func (p *Profile) MethodBits(dir dissect.Dir) int { return bits.Len32(p.methodCount(dir)) }

func (p *Profile) methodCount(dir dissect.Dir) uint32 {
	if dir == dissect.C2S {
		return p.ServerMethods
	}
	return p.ClientMethods
}

// enumWidth is how many bits the writer uses for enum value v (wire.md 4.2):
// the widened width once widened, except for the detection message, which
// is always written at its vanilla width.
func (p *Profile) enumWidth(dir dissect.Dir, widened bool, v uint32) int {
	if !widened || v == p.DetectionMessage(dir) {
		return p.EnumBits(dir)
	}
	return p.WidenedBits(dir)
}

// readEnum reads the message enum at bit 0 (wire.md 4.2): oldBits first; when
// the direction is widened and the value is not the detection message,
// extraBits more, the value being low | high<<oldBits.
func (m *decoder) readEnum() {
	p := m.p
	old := p.EnumBits(m.dir)
	e := &m.d.Enum
	v := m.r.Bits(old)
	e.Bits = old
	if m.r.Err() == nil && m.st.Widened && v != p.DetectionMessage(m.dir) {
		hi := m.r.Bits(p.ExtraBits)
		v |= hi << uint(old)
		e.Bits += p.ExtraBits
		e.Widened = true
	}
	if !m.check("enum", 0) {
		m.d.Kind = KindUnknown
		return
	}
	e.Value = v
	if m.spans != nil {
		m.spans.AddUint("enum", 0, &m.r, uint64(v))
	}
	m.d.Kind = p.Kind(m.dir, v)
}
