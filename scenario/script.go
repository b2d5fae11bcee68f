package scenario

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/unturned"
)

// Write is one send call on one side of a connection: the stream bytes of
// one or more framed messages (wire.md 2).
type Write struct {
	Dir     dissect.Dir
	Data    []byte        // frame headers and messages
	Frames  []int         // offsets in Data where a frame header starts
	Gap     time.Duration // time since the previous write
	Capture bool          // the capture is running (false before a "capture" action)
	Cut     int           // bytes of this write's first segment left out of the capture
}

// Script is the sequence of writes of one connection, as the USMN rules
// make them out of the scenario's actions.
type Script struct {
	Conn      dissect.Conn
	Transport Transport
	Writes    []Write
	Messages  int
}

// replyGap is how long a peer takes to answer a message automatically.
const replyGap = 200 * time.Microsecond

// Scripts plays every connection's actions under the USMN rules of wire.md
// 4 and returns the writes they produce.
func (s *Scenario) Scripts() ([]Script, error) {
	out := make([]Script, len(s.Conns))
	for i := range s.Conns {
		c := &s.Conns[i]
		pl := newPlayer(s.P, c)
		pl.schemas = s.Set
		for j := range c.Actions {
			if err := pl.act(&c.Actions[j]); err != nil {
				return nil, fmt.Errorf("scenario %s: connection %d: action %d (%s): %w", s.Name, i+1, j+1, c.Actions[j].Do, err)
			}
		}
		out[i] = Script{
			Conn:      dissect.Conn{Client: c.ClientAddr, Server: c.ServerAddr},
			Transport: c.Transport,
			Writes:    pl.writes,
			Messages:  pl.msgs,
		}
	}
	return out, nil
}

// clientListener is a client listener and what the client knows of it.
type clientListener struct {
	ListenerSpec
	serverID int  // the server's ID once learned, else -1
	sentDef  bool // the client has sent its definition
}

// player holds one connection's USMN state while its actions are played.
type player struct {
	p       *unturned.Profile
	c       *Connection
	schemas *schema.Set // payload values by name (payload.go)
	e       unturned.Encoder

	widened    bool // both sides run USMN and the handshake is over (wire.md 4.2)
	handshaken bool
	idBits     int // Serverside_ID_Bit_Count of the server (wire.md 4.3)

	serverDefined   []bool // per server ID: the definition was sent
	clients         []clientListener
	missingOnServer map[string]bool // listener types the server said it lacks
	missingOnClient map[string]bool // listener types the client said it lacks

	writes  []Write
	msgs    int
	gap     time.Duration
	capture bool
	cut     int
}

func newPlayer(p *unturned.Profile, c *Connection) *player {
	pl := &player{
		p: p, c: c, e: unturned.Encoder{P: p, MarkerVersion: c.USMNVersion},
		serverDefined:   make([]bool, len(c.ServerLs)),
		missingOnServer: map[string]bool{},
		missingOnClient: map[string]bool{},
		capture:         !hasCapture(c.Actions),
	}
	if n := len(c.ServerLs); n > 0 {
		pl.idBits = bits.Len32(uint32(n - 1))
	}
	for _, l := range c.ClientLs {
		pl.clients = append(pl.clients, clientListener{ListenerSpec: l, serverID: -1})
	}
	return pl
}

func hasCapture(as []Action) bool {
	for _, a := range as {
		if a.Do == "capture" {
			return true
		}
	}
	return false
}

// emit frames msg and queues it as a write from side d.
func (pl *player) emit(d dissect.Dir, msg []byte) error {
	if len(msg) > 0xffff {
		return fmt.Errorf("message of %d bytes does not fit a 2-byte frame header (docs/protocol.md)", len(msg))
	}
	data := make([]byte, 2+len(msg))
	binary.BigEndian.PutUint16(data, uint16(len(msg)))
	copy(data[2:], msg)
	pl.stream(d, data, []int{0})
	pl.msgs++
	return nil
}

// stream queues raw stream bytes as a write.
func (pl *player) stream(d dissect.Dir, data []byte, frames []int) {
	pl.writes = append(pl.writes, Write{Dir: d, Data: data, Frames: frames, Gap: pl.gap, Capture: pl.capture, Cut: pl.cut})
	pl.cut = 0
	pl.gap = replyGap
}

func dirOf(from string) dissect.Dir {
	if from == "server" {
		return dissect.S2C
	}
	return dissect.C2S
}

// widenedFor says whether side d writes widened enums now, unless the
// action overrides it.
func (pl *player) widenedFor(a *Action) bool {
	if a.Widened != nil {
		return *a.Widened
	}
	return pl.widened
}

func (pl *player) act(a *Action) error {
	pl.gap = pl.c.Transport.Gap.Duration
	if a.After != nil {
		pl.gap = a.After.Duration
	}
	n := a.Count
	if n == 0 {
		n = 1
	}
	for range n {
		if err := actions[a.Do](pl, a); err != nil {
			return err
		}
	}
	return nil
}

// actions dispatches an action by its "do" name.
var actions = map[string]func(*player, *Action) error{
	"handshake":  (*player).handshake,
	"ping":       (*player).ping,
	"invoke":     (*player).invoke,
	"negotiate":  (*player).negotiate,
	"request":    (*player).request,
	"kick":       (*player).kick,
	"reject":     (*player).reject,
	"accept":     (*player).accept,
	"disconnect": (*player).disconnect,
	"raw":        (*player).raw,
	"capture":    (*player).startCapture,
	"message":    (*player).message,
	"method":     (*player).method,
}

// handshake plays the vanilla detection pair of wire.md 4.1: the client's
// GetWorkshopFiles, the server's DownloadWorkshopFiles, each with its
// marker when that side runs USMN. Both are written with vanilla widths;
// everything after is widened when both sides run USMN (wire.md 4.2).
func (pl *player) handshake(a *Action) error {
	c := pl.c
	if err := pl.emit(dissect.C2S, pl.e.GetWorkshopFiles(c.ClientUSMN, nil)); err != nil {
		return err
	}
	info := unturned.WorkshopInfo{
		ServerName: "usmnscope", Map: "PEI", PvP: true, GameMode: 1, CameraMode: 1, MaxPlayers: 24,
		Description: "usmnscope generated server",
	}
	if a.Reason != "" {
		info.ServerName = a.Reason
	}
	var m *unturned.Marker
	if c.ServerUSMN {
		m = &unturned.Marker{Version: c.USMNVersion, IDBits: pl.idBits, HasIDBits: true}
	}
	if err := pl.emit(dissect.S2C, pl.e.DownloadWorkshopFiles(info, m, nil)); err != nil {
		return err
	}
	pl.handshaken = true
	pl.widened = c.ClientUSMN && c.ServerUSMN
	return nil
}

func (pl *player) ping(a *Action) error {
	d := dirOf(a.From)
	w := pl.widenedFor(a)
	if err := pl.emit(d, pl.e.Ping(d, w, false)); err != nil {
		return err
	}
	if a.Reply != nil && !*a.Reply {
		return nil
	}
	return pl.emit(1-d, pl.e.Ping(1-d, w, true))
}

func (pl *player) serverIndex(typ string) int {
	for i, l := range pl.c.ServerLs {
		if l.Type == typ {
			return i
		}
	}
	return -1
}

func (pl *player) clientIndex(typ string) int {
	for i, l := range pl.clients {
		if l.Type == typ {
			return i
		}
	}
	return -1
}

func (pl *player) usmn() bool { return pl.c.ClientUSMN && pl.c.ServerUSMN && pl.handshaken }

// invoke sends an Invoke Message Listener and plays the peer's reaction.
func (pl *player) invoke(a *Action) error {
	payload, _ := unhex(a.Payload)
	if !pl.usmn() && !a.Force {
		return nil // USMN sends nothing to a peer that does not run it
	}
	if a.From == "server" {
		return pl.invokeS2C(a, payload)
	}
	return pl.invokeC2S(a, payload)
}

func (pl *player) invokeS2C(a *Action, payload []byte) error {
	w := pl.widenedFor(a)
	if a.ServerID != nil {
		// An ID chosen by the scenario, with no state: for references the
		// capture cannot resolve (wire.md 4.5 "unresolved").
		h := unturned.Invoke{ServerID: *a.ServerID, IDBits: pl.idBits}
		if a.Define != nil && *a.Define {
			h.HasDefinition, h.Type, h.Version = true, stringOr(a.Type, a.Listener), uintOr(a.Version, 0)
			typeBytes(a, &h)
		}
		return pl.emitInvoke(a, dissect.S2C, w, pl.e.InvokeS2C(w, h, payload))
	}
	si := pl.serverIndex(a.Listener)
	if si < 0 {
		return fmt.Errorf("listener: the server has no listener %q", a.Listener)
	}
	if pl.missingOnClient[a.Listener] && !a.Force {
		return nil // the client said it lacks it (wire.md 4.4 TellServerMissingListener)
	}
	sl := pl.c.ServerLs[si]
	def := !pl.serverDefined[si]
	if a.Define != nil {
		def = *a.Define
	}
	h := unturned.Invoke{HasDefinition: def, IDBits: pl.idBits, ServerID: uint32(si), Type: sl.Type, Version: sl.Version}
	if a.Type != nil {
		h.Type = *a.Type
	}
	typeBytes(a, &h)
	if err := pl.emitInvoke(a, dissect.S2C, w, pl.e.InvokeS2C(w, h, payload)); err != nil {
		return err
	}
	if !def {
		return nil
	}
	pl.serverDefined[si] = true
	// The client learns the server's ID from the definition, or says it
	// lacks the listener.
	if ci := pl.clientIndex(h.Type); ci >= 0 {
		pl.clients[ci].serverID = si
		return nil
	}
	if a.Reply != nil && !*a.Reply {
		return nil
	}
	pl.missingOnClient[h.Type] = true
	return pl.emit(dissect.C2S, pl.e.Negotiate(dissect.C2S, w, unturned.Negotiate{Mode: unturned.TellServerMissingListener, ServerID: uint32(si), IDBits: pl.idBits}))
}

func (pl *player) invokeC2S(a *Action, payload []byte) error {
	w := pl.widenedFor(a)
	if a.ServerID != nil {
		h := unturned.Invoke{ServerID: *a.ServerID, IDBits: pl.idBits}
		return pl.emitInvoke(a, dissect.C2S, w, pl.e.InvokeC2S(w, h, payload))
	}
	ci := pl.clientIndex(a.Listener)
	if ci < 0 {
		return fmt.Errorf("listener: the client has no listener %q", a.Listener)
	}
	if pl.missingOnServer[a.Listener] && !a.Force {
		return nil // the server said it lacks it (wire.md 4.4 TellClientMissingListener)
	}
	cl := &pl.clients[ci]
	if cl.serverID >= 0 {
		h := unturned.Invoke{ServerID: uint32(cl.serverID), IDBits: pl.idBits}
		return pl.emitInvoke(a, dissect.C2S, w, pl.e.InvokeC2S(w, h, payload))
	}
	def := !cl.sentDef
	if a.Define != nil {
		def = *a.Define
	}
	h := unturned.Invoke{IsClientID: true, HasClientID: true, HasDefinition: def, ClientID: *cl.ID, Type: cl.Type, Version: cl.Version}
	if a.Type != nil {
		h.Type = *a.Type
	}
	typeBytes(a, &h)
	if err := pl.emitInvoke(a, dissect.C2S, w, pl.e.InvokeC2S(w, h, payload)); err != nil {
		return err
	}
	if !def {
		return nil
	}
	cl.sentDef = true
	if a.Reply != nil && !*a.Reply {
		return nil
	}
	return pl.answer(cl, w)
}

// answer is the server's reply to a client definition or request: its ID
// (TellClientListenerId) or that it lacks the listener (wire.md 4.4).
func (pl *player) answer(cl *clientListener, w bool) error {
	si := pl.serverIndex(cl.Type)
	if si < 0 {
		pl.missingOnServer[cl.Type] = true
		return pl.emit(dissect.S2C, pl.e.Negotiate(dissect.S2C, w, unturned.Negotiate{Mode: unturned.TellClientMissingListener, ClientID: *cl.ID}))
	}
	sl := pl.c.ServerLs[si]
	cl.serverID = si
	return pl.emit(dissect.S2C, pl.e.Negotiate(dissect.S2C, w, unturned.Negotiate{
		Mode: unturned.TellClientListenerID, ClientID: *cl.ID, ServerID: uint32(si), Version: sl.Version, Type: sl.Type, IDBits: pl.idBits,
	}))
}

// request sends RequestServerListenerId for a client listener; the server
// answers unless reply = false.
func (pl *player) request(a *Action) error {
	if !pl.usmn() && !a.Force {
		return nil
	}
	ci := pl.clientIndex(a.Listener)
	if ci < 0 {
		return fmt.Errorf("listener: the client has no listener %q", a.Listener)
	}
	cl := &pl.clients[ci]
	w := pl.widenedFor(a)
	n := unturned.Negotiate{Mode: unturned.RequestServerListenerID, ClientID: *cl.ID, Version: cl.Version, Type: cl.Type}
	if err := pl.emit(dissect.C2S, pl.e.Negotiate(dissect.C2S, w, n)); err != nil {
		return err
	}
	cl.sentDef = true
	if a.Reply != nil && !*a.Reply {
		return nil
	}
	return pl.answer(cl, w)
}

// negotiate sends one Negotiate Listener Details as the scenario spells
// it. IDs, type and version come from the named listener unless given, and
// the message has the effect USMN gives it.
func (pl *player) negotiate(a *Action) error {
	mode := modeByName[a.Mode]
	n := unturned.Negotiate{Mode: mode, IDBits: pl.idBits}
	ci, si := pl.clientIndex(a.Listener), pl.serverIndex(a.Listener)
	if ci >= 0 {
		n.ClientID, n.Version, n.Type = *pl.clients[ci].ID, pl.clients[ci].Version, pl.clients[ci].Type
	}
	if si >= 0 {
		n.ServerID = uint32(si)
		if mode == unturned.TellClientListenerID {
			n.Version, n.Type = pl.c.ServerLs[si].Version, pl.c.ServerLs[si].Type
		}
	}
	n.ClientID = uintOr(a.ClientID, n.ClientID)
	n.ServerID = uintOr(a.ServerID, n.ServerID)
	n.Version = uintOr(a.Version, n.Version)
	n.Type = stringOr(a.Type, n.Type)
	if n.Type == "" {
		n.Type = a.Listener
	}
	switch mode {
	case unturned.TellClientMissingListener:
		pl.missingOnServer[a.Listener] = true
	case unturned.TellClientListenerID:
		if ci >= 0 {
			pl.clients[ci].serverID = int(n.ServerID)
		}
	case unturned.TellServerMissingListener:
		pl.missingOnClient[a.Listener] = true
	case unturned.RequestServerListenerID:
		if ci >= 0 {
			pl.clients[ci].sentDef = true
		}
	}
	if a.TypeHex != "" {
		n.TypeBytes, _ = unhex(a.TypeHex)
		n.Type = ""
	}
	d := negotiateDir(mode)
	return pl.emit(d, pl.e.Negotiate(d, pl.widenedFor(a), n))
}

func (pl *player) kick(a *Action) error {
	return pl.emit(dissect.S2C, pl.e.Kicked(pl.widenedFor(a), a.Reason))
}

func (pl *player) reject(a *Action) error {
	return pl.emit(dissect.S2C, pl.e.Rejected(pl.widenedFor(a), unturned.Rejection(a.Code), a.Reason))
}

// accept sends Accepted with the server's IPv4 address (0 for IPv6) and
// its query port, the connection port − 1 (wire.md 2).
func (pl *player) accept(a *Action) error {
	var ip uint32
	if s := pl.c.ServerAddr.Addr(); s.Is4() {
		b := s.As4()
		ip = binary.BigEndian.Uint32(b[:])
	}
	return pl.emit(dissect.S2C, pl.e.Accepted(pl.widenedFor(a), ip, pl.c.ServerAddr.Port()-1, nil))
}

func (pl *player) disconnect(a *Action) error {
	return pl.emit(dissect.C2S, pl.e.GracefullyDisconnect(pl.widenedFor(a)))
}

// raw writes bytes the scenario gives: a message (framed here) or stream
// bytes as they are, for hostile input.
func (pl *player) raw(a *Action) error {
	d := dirOf(a.From)
	if a.Hex != "" {
		b, _ := unhex(a.Hex)
		return pl.emit(d, b)
	}
	b, _ := unhex(a.Stream)
	pl.stream(d, b, nil)
	return nil
}

// startCapture marks where the capture begins: earlier writes happen but
// are not captured (a capture started mid-connection, wire.md 2).
func (pl *player) startCapture(a *Action) error {
	pl.capture = true
	pl.cut = a.Cut
	return nil
}

func uintOr(p *uint32, v uint32) uint32 {
	if p != nil {
		return *p
	}
	return v
}

func stringOr(p *string, v string) string {
	if p != nil {
		return *p
	}
	return v
}

// negotiateDir is the direction a negotiate mode travels in (wire.md 4.4).
func negotiateDir(m unturned.NegotiateMode) dissect.Dir {
	if m == unturned.TellServerMissingListener || m == unturned.RequestServerListenerID {
		return dissect.C2S
	}
	return dissect.S2C
}

// typeBytes puts type_hex, when given, in the header as raw type-name
// bytes, which need not be UTF-8 (hostile input).
func typeBytes(a *Action, h *unturned.Invoke) {
	if a.TypeHex != "" {
		h.TypeBytes, _ = unhex(a.TypeHex)
		h.Type = ""
	}
}

// message writes a vanilla message by name with the payload bytes after
// its enum, for the long messages the scenario spells out in hex.
func (pl *player) message(a *Action) error {
	d := dirOf(a.From)
	k, ok := kindByName(pl.p, d, a.Name)
	if !ok {
		return fmt.Errorf("name: %q is not a %s message of docs/protocol.md", a.Name, d)
	}
	payload, _ := unhex(a.Payload)
	return pl.emit(d, pl.e.Message(d, pl.widenedFor(a), k, payload))
}

// kindByName finds the message kind sent in direction d with that name.
func kindByName(p *unturned.Profile, d dissect.Dir, name string) (unturned.Kind, bool) {
	for k := unturned.KindUnknown + 1; k < unturned.KindInvokeMessageListener; k++ {
		if k.String() == name {
			if _, ok := p.MessageValue(d, k); ok {
				return k, true
			}
		}
	}
	return 0, false
}
