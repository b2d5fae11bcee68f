package unturned

import (
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

// DefaultMarkerVersion is the usmn_version an Encoder writes in a marker when
// none is given. The seed (001, "1.0.0-prerelease01") does not say how USMN
// numbers its protocol version on the wire; 1 is usmnscope's choice.
const DefaultMarkerVersion = 1

// Encoder writes every message form that Decode reads, as the game and
// USMN write them (wire.md 3, 4, 6). Tests, the fixture generator and
// `usmnscope simulate` build their traffic with it. Each method returns the
// message bytes without the 2-byte frame header; widened says whether the
// enum is written widened (wire.md 4.2).
//
// Values wider than their field are cut to the field's width, as the game's
// writer does; no method fails.
type Encoder struct {
	P *Profile // nil means Default()
	// MarkerVersion is the usmn_version GetWorkshopFiles' marker carries;
	// zero means DefaultMarkerVersion.
	MarkerVersion uint32
}

func (e Encoder) profile() *Profile {
	if e.P == nil {
		return defaultProfile
	}
	return e.P
}

// begin starts a message of kind k: the enum at bit 0.
func (e Encoder) begin(dir dissect.Dir, widened bool, k Kind) *netpak.Writer {
	v, _ := e.profile().MessageValue(dir, k)
	return e.start(dir, widened, v)
}

func (e Encoder) start(dir dissect.Dir, widened bool, v uint32) *netpak.Writer {
	w := netpak.NewWriter()
	w.Bits(v, e.profile().enumWidth(dir, widened, v))
	return w
}

// bitsOf appends b to w at the current bit position, with no alignment (a
// trailer, a listener payload, undecoded bits).
func bitsOf(w *netpak.Writer, b []byte) {
	for _, c := range b {
		w.Bits(uint32(c), 8)
	}
}

func done(w *netpak.Writer) []byte { return append([]byte(nil), w.Bytes()...) }

// GetWorkshopFiles writes the client's first message (wire.md 3): always
// the vanilla enum width, align, 960 zero bytes, String("Hello!"); then, with
// marker, [magic:32][usmn_version:32] (wire.md 6), then trailer.
func (e Encoder) GetWorkshopFiles(marker bool, trailer []byte) []byte {
	p := e.profile()
	w := e.begin(dissect.C2S, false, KindGetWorkshopFiles)
	w.RawBytes(make([]byte, 960))
	w.String("Hello!", netpak.DefaultStringBits)
	if marker {
		w.UInt32(p.MarkerMagic)
		w.UInt32(e.markerVersion())
	}
	bitsOf(w, trailer)
	return done(w)
}

func (e Encoder) markerVersion() uint32 {
	if e.MarkerVersion == 0 {
		return DefaultMarkerVersion
	}
	return e.MarkerVersion
}

// DownloadWorkshopFiles writes the server's answer (wire.md 3) in the
// profile's game layout, always at the vanilla enum width; then, when marker
// is not nil, [magic:32][usmn_version:32][Serverside_ID_Bit_Count] (wire.md
// 6; marker.Magic zero means the profile's), then trailer.
func (e Encoder) DownloadWorkshopFiles(info WorkshopInfo, marker *Marker, trailer []byte) []byte {
	p := e.profile()
	w := e.begin(dissect.S2C, false, KindDownloadWorkshopFiles)
	w.Bits(uint32(info.Holiday), p.HolidayBits())
	n := len(info.Files)
	if n > 255 {
		n = 255
	}
	w.UInt8(uint8(n))
	for _, f := range info.Files[:n] {
		w.UInt64(f.ID)
		w.Int64(f.Updated)
	}
	w.String(info.ServerName, netpak.DefaultStringBits)
	w.String(info.Map, netpak.DefaultStringBits)
	for _, b := range []bool{info.PvP, info.Cheats, info.VAC, info.AntiCheat, info.Gold} {
		w.Bit(b)
	}
	w.Bits(uint32(info.GameMode), 3)
	w.Bits(uint32(info.CameraMode), 3)
	w.UInt8(info.MaxPlayers)
	w.String(info.BookmarkHost, netpak.DefaultStringBits)
	w.String(info.Thumbnail, netpak.DefaultStringBits)
	w.String(info.Description, netpak.DefaultStringBits)
	if marker != nil {
		magic := marker.Magic
		if magic == 0 {
			magic = p.MarkerMagic
		}
		w.UInt32(magic)
		w.UInt32(marker.Version)
		w.Bits(uint32(marker.IDBits), p.IDBitCountBitCount)
	}
	bitsOf(w, trailer)
	return done(w)
}

func typeBytes(t string, b []byte) []byte {
	if t != "" {
		return []byte(t)
	}
	return b
}

// InvokeS2C writes an S→C Invoke Message Listener (wire.md 4.3). h.IDBits is
// the width of Listener_ID: with a definition it is written as
// Serverside_ID_Bit_Count; without, it is the count in force (not written).
// The payload bytes follow the header directly, unaligned.
func (e Encoder) InvokeS2C(widened bool, h Invoke, payload []byte) []byte {
	p := e.profile()
	w := e.begin(dissect.S2C, widened, KindInvokeMessageListener)
	w.Bit(h.HasDefinition)
	if h.HasDefinition {
		w.Bits(uint32(h.IDBits), p.IDBitCountBitCount)
	}
	w.Bits(h.ServerID, h.IDBits)
	if h.HasDefinition {
		w.StringBytes(typeBytes(h.Type, h.TypeBytes), p.TypeNameBitCount)
		w.UInt32(h.Version)
	}
	bitsOf(w, payload)
	return done(w)
}

// InvokeC2S writes a C→S Invoke Message Listener (wire.md 4.3). With
// h.HasClientID (or h.IsClientID) it carries Clientside_Listener_ID and, with
// h.HasDefinition, the definition; otherwise Serverside_Listener_ID in
// h.IDBits bits (the count in force).
func (e Encoder) InvokeC2S(widened bool, h Invoke, payload []byte) []byte {
	p := e.profile()
	w := e.begin(dissect.C2S, widened, KindInvokeMessageListener)
	client := h.HasClientID || h.IsClientID
	w.Bit(client)
	if client {
		w.Bit(h.HasDefinition)
		w.UInt32(h.ClientID)
		if h.HasDefinition {
			w.StringBytes(typeBytes(h.Type, h.TypeBytes), p.TypeNameBitCount)
			w.UInt32(h.Version)
		}
	} else {
		w.Bits(h.ServerID, h.IDBits)
	}
	bitsOf(w, payload)
	return done(w)
}

// modeValue is the profile's wire value of mode m (wire.md 6, modes).
func (p *Profile) modeValue(m NegotiateMode) (uint32, bool) {
	switch m {
	case TellClientMissingListener:
		return p.ModeTellClientMissingListener, true
	case TellClientListenerID:
		return p.ModeTellClientListenerID, true
	case TellServerMissingListener:
		return p.ModeTellServerMissingListener, true
	case RequestServerListenerID:
		return p.ModeRequestServerListenerID, true
	}
	return 0, false
}

// Negotiate writes a Negotiate Listener Details in direction dir (wire.md
// 4.4). The fields follow n.Mode whatever the direction, so tests can write a
// mode the wrong way; ModeUnknown writes n.Raw as the mode and nothing else.
// Serverside_Listener_ID is n.IDBits wide.
func (e Encoder) Negotiate(dir dissect.Dir, widened bool, n Negotiate) []byte {
	p := e.profile()
	w := e.begin(dir, widened, KindNegotiateListenerDetails)
	mode, ok := p.modeValue(n.Mode)
	if !ok {
		mode = n.Raw
	}
	w.Bits(mode, p.NegotiateModeBitCount)
	name := typeBytes(n.Type, n.TypeBytes)
	switch n.Mode {
	case TellClientMissingListener:
		w.UInt32(n.ClientID)
	case TellClientListenerID:
		w.UInt32(n.ClientID)
		w.Bits(n.ServerID, n.IDBits)
		w.UInt32(n.Version)
		w.StringBytes(name, p.TypeNameBitCount)
	case TellServerMissingListener:
		w.Bits(n.ServerID, n.IDBits)
	case RequestServerListenerID:
		w.UInt32(n.ClientID)
		w.UInt32(n.Version)
		w.StringBytes(name, p.TypeNameBitCount)
	}
	return done(w)
}

// Ping writes PingRequest, or PingResponse when response (wire.md 3: empty).
func (e Encoder) Ping(dir dissect.Dir, widened, response bool) []byte {
	k := KindServerPingRequest
	switch {
	case dir == dissect.C2S && response:
		k = KindServerPingResponse
	case dir == dissect.S2C && !response:
		k = KindClientPingRequest
	case dir == dissect.S2C:
		k = KindClientPingResponse
	}
	return done(e.begin(dir, widened, k))
}

func (e Encoder) text(widened bool, k Kind, s string) []byte {
	w := e.begin(dissect.S2C, widened, k)
	w.String(s, netpak.DefaultStringBits)
	return done(w)
}

// Kicked writes Kicked: String reason (wire.md 3).
func (e Encoder) Kicked(widened bool, reason string) []byte {
	return e.text(widened, KindKicked, reason)
}

// Shutdown writes Shutdown: String (wire.md 3).
func (e Encoder) Shutdown(widened bool, reason string) []byte {
	return e.text(widened, KindShutdown, reason)
}

// Rejected writes Rejected: ESteamRejection (6 bits), String explanation.
func (e Encoder) Rejected(widened bool, r Rejection, explanation string) []byte {
	w := e.begin(dissect.S2C, widened, KindRejected)
	w.Bits(uint32(r), RejectionBits)
	w.String(explanation, netpak.DefaultStringBits)
	return done(w)
}

// Banned writes Banned: String reason, UInt32 seconds.
func (e Encoder) Banned(widened bool, reason string, seconds uint32) []byte {
	w := e.begin(dissect.S2C, widened, KindBanned)
	w.String(reason, netpak.DefaultStringBits)
	w.UInt32(seconds)
	return done(w)
}

// Accepted writes Accepted: UInt32 IPv4 (first octet in the high byte),
// UInt16 query port; in 3.24, config follows (undecoded bits, unaligned).
func (e Encoder) Accepted(widened bool, ip uint32, queryPort uint16, config []byte) []byte {
	w := e.begin(dissect.S2C, widened, KindAccepted)
	w.UInt32(ip)
	w.UInt16(queryPort)
	bitsOf(w, config)
	return done(w)
}

// Verify writes Verify (empty).
func (e Encoder) Verify(widened bool) []byte { return done(e.begin(dissect.S2C, widened, KindVerify)) }

func (e Encoder) byteMsg(widened bool, k Kind, v uint8) []byte {
	w := e.begin(dissect.S2C, widened, k)
	w.UInt8(v)
	return done(w)
}

// QueuePositionChanged writes QueuePositionChanged: UInt8.
func (e Encoder) QueuePositionChanged(widened bool, pos uint8) []byte {
	return e.byteMsg(widened, KindQueuePositionChanged, pos)
}

// Admined writes Admined: UInt8.
func (e Encoder) Admined(widened bool, player uint8) []byte {
	return e.byteMsg(widened, KindAdmined, player)
}

// Unadmined writes Unadmined: UInt8.
func (e Encoder) Unadmined(widened bool, player uint8) []byte {
	return e.byteMsg(widened, KindUnadmined, player)
}

// PlayerDisconnected writes PlayerDisconnected: NetID (3.24.7+).
func (e Encoder) PlayerDisconnected(widened bool, netID uint32) []byte {
	w := e.begin(dissect.S2C, widened, KindPlayerDisconnected)
	w.UInt32(netID)
	return done(w)
}

// GracefullyDisconnect writes GracefullyDisconnect (C→S, empty).
func (e Encoder) GracefullyDisconnect(widened bool) []byte {
	return done(e.begin(dissect.C2S, widened, KindGracefullyDisconnect))
}

// InvokeMethod writes InvokeMethod in direction dir (wire.md 3): the method
// index in CountBits(method count) bits, then netID when it is not 0 (an
// instance method; a static method passes 0), then params, unaligned.
func (e Encoder) InvokeMethod(dir dissect.Dir, widened bool, index, netID uint32, params []byte) []byte {
	k := KindServerInvokeMethod
	if dir == dissect.S2C {
		k = KindClientInvokeMethod
	}
	w := e.begin(dir, widened, k)
	w.Bits(index, e.profile().MethodBits(dir))
	if netID != 0 {
		w.UInt32(netID)
	}
	bitsOf(w, params)
	return done(w)
}

// Buffer writes a legacy UPDATE_RELIABLE_BUFFER (or, when !reliable,
// UPDATE_UNRELIABLE_BUFFER): enum and pad bits in byte 0, call index, channel,
// then data (wire.md 3).
func (e Encoder) Buffer(widened, reliable bool, call, channel uint8, data []byte) []byte {
	k := KindUpdateUnreliableBuffer
	if reliable {
		k = KindUpdateReliableBuffer
	}
	w := e.begin(dissect.S2C, widened, k)
	w.AlignToByte()
	w.UInt8(call)
	w.UInt8(channel)
	w.RawBytes(data)
	return done(w)
}

// Raw writes enum value v in direction dir, then tail unaligned: the long
// messages (ReadyToConnect, Authenticate, PlayerConnected, ReplicateConfig,
// ValidateAssets, ThirdPartyAntiCheat) and unknown values.
func (e Encoder) Raw(dir dissect.Dir, widened bool, v uint32, tail []byte) []byte {
	w := e.start(dir, widened, v)
	bitsOf(w, tail)
	return done(w)
}

// Message writes kind k in direction dir with tail after the enum, like Raw
// but by kind; it returns nil when k is not sent that way.
func (e Encoder) Message(dir dissect.Dir, widened bool, k Kind, tail []byte) []byte {
	v, ok := e.profile().MessageValue(dir, k)
	if !ok {
		return nil
	}
	return e.Raw(dir, widened, v, tail)
}
