package scenario

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// RPC is a ULinkRPC scenario (`protocol = "ulinkrpc"`, fixtures/README.md
// "ULinkRPC scenarios"): connections over TCP, WebSocket or KCP, each a
// script of calls, pushes and keep-alives written with package ulinkrpc's
// encoders, JSON or MemoryPack payloads, the transform layer as set.
type RPC struct {
	Protocol  string      `toml:"protocol"` // "ulinkrpc"
	Name      string      `toml:"name"`
	Seed      uint64      `toml:"seed"`
	Start     time.Time   `toml:"start"`
	Link      string      `toml:"link"`
	Transport Transport   `toml:"transport"` // TCP packet shaping, as for Unturned scenarios
	U         RPCSettings `toml:"ulinkrpc"`
	Conns     []RPCConn   `toml:"connection"`

	contracts *ulinkrpc.Contracts
	types     ulinkrpc.DTOs
	keys      *ulinkrpc.Keys
}

// RPCSettings is the scenario's [ulinkrpc] table.
type RPCSettings struct {
	Transport     string `toml:"transport"`  // tcp | websocket | kcp
	Serializer    string `toml:"serializer"` // json | memorypack
	Contracts     string `toml:"contracts"`  // folder of C# contracts, relative to the scenario file
	Compress      bool   `toml:"compress"`
	Threshold     int    `toml:"threshold"`      // gzip from this frame size (default 1024)
	Key           string `toml:"key"`            // base64 master key: encrypt
	KeyDerivation string `toml:"key_derivation"` // hkdf | sha256
	WSPath        string `toml:"ws_path"`
	MSS           int    `toml:"mss"` // KCP data bytes per segment (default 1376)
}

// RPCConn is one ULinkRPC connection.
type RPCConn struct {
	Client  string      `toml:"client"`
	Server  string      `toml:"server"`
	Conv    uint32      `toml:"conv"` // KCP conversation (default from the seed)
	Actions []RPCAction `toml:"action"`

	ClientAddr, ServerAddr netip.AddrPort `toml:"-"`
}

// RPCAction is one step of a connection's script.
type RPCAction struct {
	// Do is call (Request, then its Response unless answer = false), push,
	// ping (KeepAlivePing, then the Pong), raw (an envelope as hex, framed),
	// wire (bytes as hex, sent as they are: a bad length prefix), ws_ping,
	// ws_close (WebSocket control frames), capture (the capture starts
	// here: what came before is not in it).
	Do       string         `toml:"do"`
	From     string         `toml:"from"` // client | server (raw, wire, ws_*)
	Service  int32          `toml:"service"`
	Method   int32          `toml:"method"`
	ID       *uint32        `toml:"id"` // request_id; default the next one
	Args     map[string]any `toml:"args"`
	Reply    map[string]any `toml:"reply"`
	Answer   *bool          `toml:"answer"` // default true
	Status   string         `toml:"status"` // Ok … ProtocolError, or a number
	Error    *string        `toml:"error"`
	Latency  Duration       `toml:"latency"` // time to the answer (default 200µs)
	Gap      Duration       `toml:"gap"`     // time since the previous action (default the transport gap)
	Ticks    *int64         `toml:"ticks"`   // ping: default the capture time in .NET ticks
	Hex      string         `toml:"hex"`
	Code     int            `toml:"code"`   // ws_close
	Reason   string         `toml:"reason"` // ws_close
	Pad      int            `toml:"pad"`    // call, push: bytes of filler added to a JSON string arg "Pad"
	Compress *bool          `toml:"compress"`
	Cut      int            `toml:"cut"` // capture: bytes of the next TCP segment left out (start inside a frame)
}

// IsRPC reports whether a scenario file's TOML says `protocol =
// "ulinkrpc"`, so that a caller picks ReadRPCFile over ReadFile.
func IsRPC(data []byte) bool {
	var p struct {
		Protocol string `toml:"protocol"`
	}
	_, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&p)
	return err == nil && p.Protocol == "ulinkrpc"
}

// ReadRPCFile reads and parses a ULinkRPC scenario; its contracts folder
// is read relative to the file.
func ReadRPCFile(path string) (*RPC, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return ParseRPC(filepath.Base(path), data, filepath.Dir(path))
}

// ParseRPC parses a ULinkRPC scenario; dir is where a contracts folder is
// looked for ("" refuses one).
func ParseRPC(name string, data []byte, dir string) (*RPC, error) {
	s := &RPC{Transport: defaultTransport(), Start: defaultStart, Link: "ethernet", Name: name}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(s)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, fmt.Errorf("scenario %s: unknown key %s", name, strings.Join(keys, ", "))
	}
	if err := s.check(dir); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	return s, nil
}

var statusByName = map[string]ulinkrpc.Status{}

func init() {
	for st := ulinkrpc.Status(0); st.Known(); st++ {
		statusByName[st.String()] = st
	}
}

func (s *RPC) check(dir string) error {
	if s.Protocol != "ulinkrpc" {
		return fmt.Errorf("protocol: %q, want \"ulinkrpc\"", s.Protocol)
	}
	if err := checkLink(s.Link); err != nil {
		return err
	}
	u := &s.U
	if u.Transport == "" {
		u.Transport = "tcp"
	}
	if u.Transport != "tcp" && u.Transport != "websocket" && u.Transport != "kcp" {
		return fmt.Errorf("ulinkrpc.transport: %q is not tcp, websocket or kcp", u.Transport)
	}
	if u.Serializer == "" {
		u.Serializer = "json"
	}
	if u.Serializer != "json" && u.Serializer != "memorypack" {
		return fmt.Errorf("ulinkrpc.serializer: %q is not json or memorypack", u.Serializer)
	}
	if u.WSPath == "" {
		u.WSPath = "/ws"
	}
	if u.MSS <= 0 || u.MSS > kcp.MSS {
		u.MSS = kcp.MSS
	}
	if u.Contracts != "" {
		if dir == "" {
			return fmt.Errorf("ulinkrpc.contracts needs ReadRPCFile")
		}
		c, err := ulinkrpc.ParseContractsFS(os.DirFS(dir), filepath.ToSlash(u.Contracts))
		if err != nil {
			return fmt.Errorf("ulinkrpc.contracts: %w", err)
		}
		s.contracts, s.types = c, c.DTOs()
	}
	if u.Serializer == "memorypack" && s.contracts == nil {
		return fmt.Errorf("ulinkrpc.serializer memorypack needs ulinkrpc.contracts (the DTO member types)")
	}
	if u.Key != "" {
		master, err := base64.StdEncoding.DecodeString(u.Key)
		if err != nil {
			return fmt.Errorf("ulinkrpc.key: %w", err)
		}
		d := ulinkrpc.HKDF
		switch u.KeyDerivation {
		case "", "hkdf":
		case "sha256":
			d = ulinkrpc.SHA256
		default:
			return fmt.Errorf("ulinkrpc.key_derivation: %q is not hkdf or sha256", u.KeyDerivation)
		}
		k := ulinkrpc.DeriveKeys(master, d)
		s.keys = &k
	}
	if t := s.Transport; t.Segment < 1 || t.Segment > 65000 {
		return fmt.Errorf("transport.segment: %d is outside 1..65000", t.Segment)
	}
	if len(s.Conns) == 0 {
		return fmt.Errorf("no [[connection]]")
	}
	for i := range s.Conns {
		c := &s.Conns[i]
		where := fmt.Sprintf("connection %d", i+1)
		var err error
		if c.ClientAddr, err = addr(c.Client, fmt.Sprintf("10.0.0.2:%d", 50412+i)); err != nil {
			return fmt.Errorf("%s: client: %w", where, err)
		}
		if c.ServerAddr, err = addr(c.Server, "10.0.0.1:20000"); err != nil {
			return fmt.Errorf("%s: server: %w", where, err)
		}
		if c.ClientAddr.Addr().Is4() != c.ServerAddr.Addr().Is4() {
			return fmt.Errorf("%s: client %s and server %s are not the same IP version", where, c.ClientAddr, c.ServerAddr)
		}
		if c.Conv == 0 {
			c.Conv = uint32(s.Seed*2654435761+uint64(i)*40503) | 1
		}
		for j := range c.Actions {
			if err := s.checkAction(&c.Actions[j]); err != nil {
				return fmt.Errorf("%s: action %d (%s): %w", where, j+1, c.Actions[j].Do, err)
			}
		}
	}
	return nil
}

func (s *RPC) checkAction(a *RPCAction) error {
	switch a.Do {
	case "call", "push", "ping", "capture":
	case "raw", "wire":
		if _, err := hex.DecodeString(strings.ReplaceAll(a.Hex, " ", "")); err != nil {
			return fmt.Errorf("hex: %w", err)
		}
	case "ws_ping", "ws_close":
		if s.U.Transport != "websocket" {
			return fmt.Errorf("%s needs ulinkrpc.transport websocket", a.Do)
		}
	default:
		return fmt.Errorf("unknown action %q", a.Do)
	}
	if a.From != "" && a.From != "client" && a.From != "server" {
		return fmt.Errorf("from: %q is not client or server", a.From)
	}
	if _, err := status(a.Status); err != nil {
		return err
	}
	if a.Latency.Duration == 0 {
		a.Latency.Duration = 200 * time.Microsecond
	}
	return nil
}

func status(s string) (ulinkrpc.Status, error) {
	if s == "" {
		return ulinkrpc.StatusOk, nil
	}
	if st, ok := statusByName[s]; ok {
		return st, nil
	}
	var n uint8
	if _, err := fmt.Sscan(s, &n); err == nil {
		return ulinkrpc.Status(n), nil
	}
	return 0, fmt.Errorf("status: %q is not a status name or number", s)
}
