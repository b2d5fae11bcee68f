package fake

import (
	"net/netip"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
	vfake "github.com/usmnscope/usmnscope/views/fake"
)

// Source is the views' synthetic source (views/fake): a test of the views
// needs this package alone.
type Source = vfake.Source

// The two connections of Capture.
var (
	Vanilla = dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.2:50000"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	USMN    = dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.3:50001"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
)

// T0 is the time of the first message.
var T0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// builder writes a message and records a span per field.
type builder struct {
	w      *netpak.Writer
	fields []netpak.Span
}

func (b *builder) bits(name string, v uint32, n int) {
	at := b.w.Len()
	b.w.Bits(v, n)
	b.fields = append(b.fields, netpak.Span{Name: name, Bit: at, Bits: n, Value: uint64(v)})
}

func (b *builder) bit(name string, v bool) {
	at := b.w.Len()
	b.w.Bit(v)
	b.fields = append(b.fields, netpak.Span{Name: name, Bit: at, Bits: 1, Value: v})
}

// str writes a NetPak String (wire.md 1.3): the span covers the empty flag,
// length, padding and bytes.
func (b *builder) str(name, s string, lenBits int) {
	at := b.w.Len()
	b.w.String(s, lenBits)
	b.fields = append(b.fields, netpak.Span{Name: name, Bit: at, Bits: b.w.Len() - at, Value: s})
}

func (b *builder) done(m *session.Message) *session.Message {
	m.Data = append([]byte(nil), b.w.Bytes()...)
	m.Fields = b.fields
	return m
}

func u32(v uint32) *uint32 { return &v }
func str(s string) *string { return &s }

// ChatType is the listener type name used by Capture.
const ChatType = "Sample.ChatListener, Sample"

// Hostile is a listener type name full of terminal control sequences.
const Hostile = "Evil\x1b[2J\x1b]0;pwned\x07\u202eltr\x9b"

// InvokeDefinition builds an S→C Invoke Message Listener with a definition
// (wire.md 4.3): widened 6-bit enum 32, Has_Listener_Definition, a 2-bit
// Serverside_ID_Bit_Count, the ID, the type name and version, then payload.
func InvokeDefinition(n int, id uint32, typ string) *session.Message {
	b := &builder{w: netpak.NewWriter()}
	b.bits("enum", 32, 6)
	b.bit("Has_Listener_Definition", true)
	b.bits("Serverside_ID_Bit_Count", 2, 5)
	b.bits("Listener_ID", id, 2)
	b.str("Listener_Type_Name", typ, 11)
	b.bits("Listener_Version", 1, 32)
	pay := b.w.Len()
	b.w.Bits(0xabcd, 16)
	m := &session.Message{
		N: n, Frame: n, Time: T0.Add(time.Duration(n) * 100 * time.Millisecond), Conn: USMN, Dir: dissect.S2C,
		Enum: unturned.Enum{Value: 32, Bits: 6, Widened: true}, Kind: unturned.KindInvokeMessageListener,
		Listener:   &unturned.Listener{Type: str(typ), Version: u32(1), ServerID: u32(id), Resolved: true},
		PayloadBit: pay, PayloadBits: 16, Summary: "def server " + itoa(id),
	}
	return b.done(m)
}

// InvokeClient builds a C→S invoke addressing server ID id (no client ID).
func InvokeClient(n int, id uint32) *session.Message {
	b := &builder{w: netpak.NewWriter()}
	b.bits("enum", 17, 5)
	b.bit("Has_Client_ID", false)
	b.bits("Serverside_Listener_ID", id, 2)
	pay := b.w.Len()
	b.w.Bits(0x5, 8)
	m := &session.Message{
		N: n, Frame: n, Time: T0.Add(time.Duration(n) * 100 * time.Millisecond), Conn: USMN, Dir: dissect.C2S,
		Enum: unturned.Enum{Value: 17, Bits: 5, Widened: true}, Kind: unturned.KindInvokeMessageListener,
		Listener:   &unturned.Listener{ServerID: u32(id), Resolved: true},
		PayloadBit: pay, PayloadBits: 8, Summary: "server " + itoa(id),
	}
	return b.done(m)
}

// Ping builds a vanilla message on conn with one finding when sev ≥ 0.
func Ping(n int, c dissect.Conn, d dissect.Dir, sev int) *session.Message {
	b := &builder{w: netpak.NewWriter()}
	v := uint32(4)
	bitsN := 4
	if d == dissect.S2C {
		v, bitsN = 2, 5
	}
	b.bits("enum", v, bitsN)
	m := &session.Message{
		N: n, Frame: n, Time: T0.Add(time.Duration(n) * 100 * time.Millisecond), Conn: c, Dir: d,
		Enum: unturned.Enum{Value: v, Bits: bitsN}, Kind: unturned.KindServerPingRequest, Summary: "ping",
	}
	if sev >= 0 {
		m.Findings = []dissect.Finding{{Severity: dissect.Severity(sev), Group: dissect.Malformed, Text: "trailing \x1b[31mjunk", Bit: 4}}
	}
	return b.done(m)
}

func itoa(v uint32) string {
	if v == 0 {
		return "0"
	}
	var d []byte
	for ; v > 0; v /= 10 {
		d = append([]byte{byte('0' + v%10)}, d...)
	}
	return string(d)
}

// Capture returns a small synthetic capture: message 1 vanilla ping, 2 a
// USMN definition of server listener 0, 3 a client invoke of 0, 4 a
// definition of listener 1 with a hostile type name, 5 a vanilla ping with
// an error finding, 6 a client invoke of 1.
func Capture() *Source {
	msgs := []*session.Message{
		Ping(1, Vanilla, dissect.C2S, -1),
		InvokeDefinition(2, 0, ChatType),
		InvokeClient(3, 0),
		InvokeDefinition(4, 1, Hostile),
		Ping(5, Vanilla, dissect.S2C, int(dissect.Error)),
		InvokeClient(6, 1),
	}
	s := &Source{Msgs: msgs}
	s.Conns = []session.ConnInfo{
		{Conn: Vanilla, First: T0, Last: T0.Add(time.Second), Messages: 2, Bytes: [2]int64{1, 1}, Worst: dissect.Error, HasFinding: true},
		{Conn: USMN, First: T0, Last: T0.Add(time.Second), Messages: 4, Bytes: [2]int64{4, 26}, USMNClient: true, USMNServer: true, Widened: [2]bool{true, true}, WidenedAt: [2]int{2, 2}},
	}
	s.Table = func(c dissect.Conn, asOf int) *session.Tables {
		if c != USMN {
			return &session.Tables{Conn: c, AsOf: asOf}
		}
		t := &session.Tables{Conn: c, AsOf: asOf}
		if asOf >= 2 {
			t.Server = append(t.Server, session.ServerEntry{ID: 0, Type: ChatType, Version: 1, IDBits: 2, First: 2, Changed: asOf == 2})
		}
		if asOf >= 4 {
			t.Server = append(t.Server, session.ServerEntry{ID: 1, Type: Hostile, Version: 1, IDBits: 2, First: 4, Changed: asOf == 4})
		}
		return t
	}
	return s
}

// Big returns a source of n generated messages over two connections; it
// builds each message when asked, so it costs nothing per message held.
func Big(n int) *Source {
	s := &Source{N: n}
	s.Gen = func(i int) *session.Message {
		switch i % 3 {
		case 0:
			m := InvokeClient(i, 0)
			m.Time = T0.Add(time.Duration(i) * time.Millisecond)
			return m
		case 1:
			m := Ping(i, Vanilla, dissect.C2S, -1)
			m.Time = T0.Add(time.Duration(i) * time.Millisecond)
			return m
		}
		m := InvokeDefinition(i, 0, ChatType)
		m.Time = T0.Add(time.Duration(i) * time.Millisecond)
		return m
	}
	s.Conns = []session.ConnInfo{{Conn: Vanilla, Messages: n / 3}, {Conn: USMN, Messages: n - n/3}}
	return s
}
