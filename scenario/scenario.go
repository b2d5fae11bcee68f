package scenario

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/unturned"
)

// Scenario is a parsed scenario file: connections, the listeners each side
// registers, a script of actions and the transport options that turn the
// script into packets. fixtures/README.md documents every key.
type Scenario struct {
	Name      string       `toml:"name"`
	Profile   string       `toml:"profile"` // profile file, relative to the scenario file
	Seed      uint64       `toml:"seed"`
	Start     time.Time    `toml:"start"` // capture time of the first packet
	Link      string       `toml:"link"`  // ethernet | vlan-ethernet | sll | sll2 | raw | null
	Transport Transport    `toml:"transport"`
	Conns     []Connection `toml:"connection"`
	Floods    []Flood      `toml:"flood"`   // hostile traffic at scale (flood.go)
	Lies      []Lie        `toml:"lie"`     // record-length lies in the file (lie.go)
	Schemas   []string     `toml:"schemas"` // payload schema files (schema.md), relative to the scenario file

	// P is the protocol profile the messages are written with (wire.md 6).
	P *unturned.Profile `toml:"-"`
	// Set holds the Schemas, for payload values given by name (payload.go).
	Set *schema.Set `toml:"-"`
}

// Transport holds the options that shape packets rather than messages. The
// scenario's [transport] table sets the defaults and a connection's own
// [connection.transport] table overrides them key by key.
type Transport struct {
	Segment      int  `toml:"segment"`       // maximum TCP payload per packet
	SplitHeaders bool `toml:"split_headers"` // cut every frame header between two segments (wire.md 2)
	Coalesce     bool `toml:"coalesce"`      // consecutive messages of one side share a write
	TCPHandshake bool `toml:"tcp_handshake"` // SYN, SYN/ACK, ACK before the first write
	Close        bool `toml:"close"`         // FIN exchange after the last action
	// Data segments are numbered per connection from 1 in the order they are
	// sent, both directions together; these lists name segment numbers.
	Retransmit []int    `toml:"retransmit"` // sent again after the next segment
	Reorder    []int    `toml:"reorder"`    // swapped with the next segment
	Loss       []int    `toml:"loss"`       // sent but not captured
	Gap        Duration `toml:"gap"`        // time between actions (default 1ms)
}

// Duration is a time.Duration written as a Go duration string ("250ms").
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("negative duration %s", b)
	}
	d.Duration = v
	return nil
}

// Connection is one TCP connection of the scenario.
type Connection struct {
	Client      string         `toml:"client"` // "IP:PORT"; IPv6 as "[::1]:50412"
	Server      string         `toml:"server"`
	ClientUSMN  bool           `toml:"client_usmn"`
	ServerUSMN  bool           `toml:"server_usmn"`
	USMNVersion uint32         `toml:"usmn_version"`
	ServerLs    []ListenerSpec `toml:"server_listeners"`
	ClientLs    []ListenerSpec `toml:"client_listeners"`
	Actions     []Action       `toml:"action"`
	TransportP  toml.Primitive `toml:"transport"`

	Transport  Transport      `toml:"-"` // the defaults with this connection's overrides
	ClientAddr netip.AddrPort `toml:"-"`
	ServerAddr netip.AddrPort `toml:"-"`
}

// ListenerSpec is a listener one side registers. Servers number theirs 0, 1,
// 2 … in registration order (wire.md 4.3); a client listener's ID is its
// own 32-bit number (default 1000 + its index).
type ListenerSpec struct {
	Type    string  `toml:"type"`
	Version uint32  `toml:"version"`
	ID      *uint32 `toml:"id"`
}

// Action is one step of a connection's script. Do names it; the other keys
// apply to some actions only (fixtures/README.md lists which).
type Action struct {
	Do       string         `toml:"do"`
	From     string         `toml:"from"`     // "client" or "server"
	Listener string         `toml:"listener"` // listener type name
	Payload  string         `toml:"payload"`  // hex listener payload
	Mode     string         `toml:"mode"`     // negotiate mode name
	ClientID *uint32        `toml:"client_id"`
	ServerID *uint32        `toml:"server_id"`
	Version  *uint32        `toml:"version"`
	Type     *string        `toml:"type"`
	TypeHex  string         `toml:"type_hex"` // type name as raw bytes (invalid UTF-8)
	Name     string         `toml:"name"`     // message: the vanilla message name
	Define   *bool          `toml:"define"`   // invoke: force a definition on or off
	Reply    *bool          `toml:"reply"`    // false: the peer does not answer
	Force    bool           `toml:"force"`    // send even where USMN would not
	Reason   string         `toml:"reason"`   // kick, reject text
	Code     uint32         `toml:"code"`     // reject: ESteamRejection
	Hex      string         `toml:"hex"`      // raw: message bytes, framed by the generator
	Stream   string         `toml:"stream"`   // raw: stream bytes written as they are
	Widened  *bool          `toml:"widened"`
	Cut      int            `toml:"cut"`   // capture: bytes of the next segment not captured
	Count    int            `toml:"count"` // ping, invoke: repeat
	After    *Duration      `toml:"after"`
	Message  string         `toml:"message"` // invoke: the listener payload's message by name (payload.go)
	Values   map[string]any `toml:"values"`  // invoke, method: payload values by field name
	Index    *uint32        `toml:"index"`   // method: the vanilla InvokeMethod index
}

// defaultStart is the capture time of the first packet when a scenario
// names none; fixed so that generated captures are reproducible.
var defaultStart = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func defaultTransport() Transport {
	return Transport{Segment: 1448, TCPHandshake: true, Close: true, Gap: Duration{time.Millisecond}}
}

// ReadFile reads and parses a scenario file; a profile it names is read
// relative to the file.
func ReadFile(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return parse(filepath.Base(path), data, func(name string) ([]byte, error) {
		if !filepath.IsAbs(name) {
			name = filepath.Join(filepath.Dir(path), name)
		}
		return os.ReadFile(name)
	})
}

// Parse parses a scenario from TOML. name is used in errors. A scenario
// parsed this way may not name a profile file.
func Parse(name string, data []byte) (*Scenario, error) {
	return parse(name, data, func(string) ([]byte, error) {
		return nil, fmt.Errorf("profile files need ReadFile")
	})
}

func parse(name string, data []byte, readProfile func(string) ([]byte, error)) (*Scenario, error) {
	s := &Scenario{Transport: defaultTransport(), Start: defaultStart, Link: "ethernet", Name: name}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(s)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	for i := range s.Conns {
		c := &s.Conns[i]
		c.Transport = s.Transport
		if err := md.PrimitiveDecode(c.TransportP, &c.Transport); err != nil {
			return nil, fmt.Errorf("scenario %s: connection %d: transport: %w", name, i+1, err)
		}
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, 0, len(und))
		for _, k := range und {
			// Payload values are free-form tables the schema encoder
			// checks key by key (payload.go); toml lists their inner keys.
			if len(k) > 3 && k[0] == "connection" && k[1] == "action" && k[2] == "values" {
				continue
			}
			keys = append(keys, k.String())
		}
		if len(keys) > 0 {
			return nil, fmt.Errorf("scenario %s: unknown key %s", name, strings.Join(keys, ", "))
		}
	}
	s.P = unturned.Default()
	if s.Profile != "" {
		b, err := readProfile(s.Profile)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: profile: %w", name, err)
		}
		if s.P, err = unturned.ParseProfile(s.Profile, b); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", name, err)
		}
	}
	if s.Set, err = readSchemas(s.Schemas, readProfile); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	return s, nil
}

// checkLink says whether link is a link type the generator writes
// (linkTypes): the one check of every scenario kind.
func checkLink(link string) error {
	if _, ok := linkTypes[link]; !ok {
		return fmt.Errorf("link: %q is not one of ethernet, vlan-ethernet, sll, sll2, raw, null", link)
	}
	return nil
}

// scaleCapture fills in the capture defaults of the scale generators (an
// Ethernet link, the default start) and checks the link: what Scale and
// RPCScale share.
func scaleCapture(link *string, start *time.Time) error {
	if *link == "" {
		*link = "ethernet"
	}
	if start.IsZero() {
		*start = defaultStart
	}
	return checkLink(*link)
}

// check validates the scenario and fills in defaults: addresses, client
// listener IDs, the USMN version.
func (s *Scenario) check() error {
	if err := checkLink(s.Link); err != nil {
		return err
	}
	if len(s.Conns) == 0 && len(s.Floods) == 0 {
		return fmt.Errorf("no [[connection]]")
	}
	if err := s.checkFloods(); err != nil {
		return err
	}
	if err := s.checkLies(); err != nil {
		return err
	}
	for i := range s.Conns {
		c := &s.Conns[i]
		where := fmt.Sprintf("connection %d", i+1)
		var err error
		if c.ClientAddr, err = addr(c.Client, fmt.Sprintf("10.0.0.2:%d", 50412+i)); err != nil {
			return fmt.Errorf("%s: client: %w", where, err)
		}
		if c.ServerAddr, err = addr(c.Server, fmt.Sprintf("10.0.0.1:%d", s.P.TransportPort)); err != nil {
			return fmt.Errorf("%s: server: %w", where, err)
		}
		if c.ClientAddr.Addr().Is4() != c.ServerAddr.Addr().Is4() {
			return fmt.Errorf("%s: client %s and server %s are not the same IP version", where, c.ClientAddr, c.ServerAddr)
		}
		if t := c.Transport; t.Segment < 1 || t.Segment > 65000 {
			return fmt.Errorf("%s: transport.segment: %d is outside 1..65000", where, t.Segment)
		}
		if c.USMNVersion == 0 {
			c.USMNVersion = 1
		}
		for j := range c.ClientLs {
			if c.ClientLs[j].ID == nil {
				id := uint32(1000 + j)
				c.ClientLs[j].ID = &id
			}
		}
		for j := range c.Actions {
			if err := c.Actions[j].check(); err != nil {
				return fmt.Errorf("%s: action %d (%s): %w", where, j+1, c.Actions[j].Do, err)
			}
		}
	}
	return nil
}

func addr(s, def string) (netip.AddrPort, error) {
	if s == "" {
		s = def
	}
	a, err := netip.ParseAddrPort(s)
	if err != nil {
		return a, err
	}
	return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()), nil
}

// actionFroms says which actions need from = "client" | "server"; the
// others fix their side themselves.
var actionFroms = map[string]bool{
	"handshake": false, "ping": true, "invoke": true, "negotiate": false, "request": false,
	"kick": false, "reject": false, "accept": false, "disconnect": false, "raw": true, "capture": false, "message": true, "method": true,
}

func (a *Action) check() error {
	needFrom, ok := actionFroms[a.Do]
	if !ok {
		return fmt.Errorf("do: %q is not one of handshake, ping, invoke, negotiate, request, kick, reject, accept, disconnect, raw, message, method, capture", a.Do)
	}
	if needFrom && a.From != "client" && a.From != "server" {
		return fmt.Errorf("from: %q is not \"client\" or \"server\"", a.From)
	}
	for _, h := range []struct{ key, v string }{{"payload", a.Payload}, {"type_hex", a.TypeHex}, {"hex", a.Hex}, {"stream", a.Stream}} {
		if _, err := unhex(h.v); err != nil {
			return fmt.Errorf("%s: %w", h.key, err)
		}
	}
	if a.Do == "raw" && (a.Hex == "") == (a.Stream == "") {
		return fmt.Errorf("raw needs exactly one of hex and stream")
	}
	if (a.Do == "invoke" || a.Do == "request") && a.Listener == "" && a.ServerID == nil {
		return fmt.Errorf("listener: missing")
	}
	if a.Do == "negotiate" {
		if _, ok := modeByName[a.Mode]; !ok {
			return fmt.Errorf("mode: %q is not TellClientMissingListener, TellClientListenerId, TellServerMissingListener or RequestServerListenerId", a.Mode)
		}
	}
	if a.Values != nil && a.Message == "" && a.Do != "method" {
		return fmt.Errorf("values: need message (the listener payload's message name)")
	}
	if a.Message != "" && a.Payload != "" {
		return fmt.Errorf("message and payload exclude each other")
	}
	if a.Count < 0 || a.Count > 1_000_000 {
		return fmt.Errorf("count: %d is outside 0..1000000", a.Count)
	}
	if a.Cut < 0 {
		return fmt.Errorf("cut: %d is negative", a.Cut)
	}
	return nil
}

var modeByName = map[string]unturned.NegotiateMode{
	"TellClientMissingListener": unturned.TellClientMissingListener,
	"TellClientListenerId":      unturned.TellClientListenerID,
	"TellServerMissingListener": unturned.TellServerMissingListener,
	"RequestServerListenerId":   unturned.RequestServerListenerID,
}

var spaces = strings.NewReplacer(" ", "", "\n", "", "\t", "")

// unhex decodes hex with optional spaces.
func unhex(s string) ([]byte, error) {
	if strings.ContainsAny(s, " \n\t") {
		s = spaces.Replace(s)
	}
	return hex.DecodeString(s)
}
