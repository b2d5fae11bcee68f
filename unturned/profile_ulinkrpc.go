package unturned

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// RPCProfile is the profile's [ulinkrpc] table (ulinkrpc.md 1): how the
// second protocol is found and decoded. Its values stay plain strings and a
// port array so that Profile stays comparable (unturned/infer keys maps by
// it) and this package does not import ulinkrpc (both are codecs, on one
// floor); the program that joins them turns the names into ulinkrpc's typed
// settings.
type RPCProfile struct {
	// Ports are the server ports whose connections (TCP, WebSocket) and
	// datagrams (KCP) are ULinkRPC.
	Ports Ports `toml:"ports"`
	// Key is the base64 master key of the transform layer's encryption
	// (ulinkrpc.md 3); empty for none.
	Key string `toml:"key"`
	// KeyDerivation is how the keys come from the master key: "hkdf" (the
	// current releases) or "sha256" (before 2026-04-12).
	KeyDerivation string `toml:"key_derivation"`
	// Serializer forces the payload decoding: "auto" detects it per
	// payload (ulinkrpc.md 6), "json" or "memorypack" force one.
	Serializer string `toml:"serializer"`
	// WSPath is the WebSocket upgrade path the servers listen on.
	WSPath string `toml:"ws_path"`
}

// The names the [ulinkrpc] table accepts.
var (
	KeyDerivations = []string{"hkdf", "sha256"}
	Serializers    = []string{"auto", "json", "memorypack"}
)

// DefaultRPCPort is the ULinkRPC port of every sample in the ULinkRPC
// repositories (ulinkrpc.md 1): the one place the default is written.
const DefaultRPCPort = 20000

// DefaultRPCProfile is the [ulinkrpc] table of the default profile.
func DefaultRPCProfile() RPCProfile {
	return RPCProfile{Ports: Ports{DefaultRPCPort}, KeyDerivation: "hkdf", Serializer: "auto", WSPath: "/ws"}
}

// MaxRPCPorts bounds the ports of [ulinkrpc] ports (an array keeps Profile
// comparable).
const MaxRPCPorts = 8

// Ports is a list of 1..MaxRPCPorts distinct non-zero ports, written in
// TOML as a list of integers ([20000, 20001]); the unused entries are 0.
type Ports [MaxRPCPorts]uint16

// List returns the ports set, in the order given.
func (p Ports) List() []uint16 {
	var out []uint16
	for _, v := range p {
		if v != 0 {
			out = append(out, v)
		}
	}
	return out
}

// ParsePorts reads a list of ports; the error names the entry at fault.
func ParsePorts(list []int64) (Ports, error) {
	var p Ports
	if len(list) == 0 {
		return p, fmt.Errorf("no port: want a list of 1 to %d ports like [20000]", MaxRPCPorts)
	}
	if len(list) > MaxRPCPorts {
		return p, fmt.Errorf("%d ports: at most %d", len(list), MaxRPCPorts)
	}
	for i, v := range list {
		if v < 1 || v > 65535 {
			return p, fmt.Errorf("entry %d: %d is not a port (1..65535)", i+1, v)
		}
		if slices.Contains(p[:i], uint16(v)) {
			return p, fmt.Errorf("entry %d: port %d twice", i+1, v)
		}
		p[i] = uint16(v)
	}
	return p, nil
}

// UnmarshalTOML reads a list of integers (a single integer is a list of
// one).
func (p *Ports) UnmarshalTOML(v any) error {
	var list []int64
	switch v := v.(type) {
	case int64:
		list = []int64{v}
	case []any:
		for i, e := range v {
			n, ok := e.(int64)
			if !ok {
				return fmt.Errorf("ports: entry %d: %v is not an integer", i+1, e)
			}
			list = append(list, n)
		}
	default:
		return fmt.Errorf("ports: %v is not a list of ports like [20000]", v)
	}
	q, err := ParsePorts(list)
	if err != nil {
		return fmt.Errorf("ports: %w", err)
	}
	*p = q
	return nil
}

// MarshalTOML writes the list.
func (p Ports) MarshalTOML() ([]byte, error) {
	parts := make([]string, 0, MaxRPCPorts)
	for _, v := range p.List() {
		parts = append(parts, strconv.Itoa(int(v)))
	}
	return []byte("[" + strings.Join(parts, ", ") + "]"), nil
}

// MasterKey decodes Key: nil for none.
func (r RPCProfile) MasterKey() ([]byte, error) {
	if strings.TrimSpace(r.Key) == "" {
		return nil, nil
	}
	k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(r.Key))
	if err != nil || len(k) == 0 {
		return nil, fmt.Errorf("not a base64 key")
	}
	return k, nil
}

// validate checks the table against transport_port; errors name the key.
func (r RPCProfile) validate(transport uint16) error {
	if len(r.Ports.List()) == 0 {
		return fmt.Errorf("ulinkrpc.ports: no port: want a list of 1 to %d ports like [20000]", MaxRPCPorts)
	}
	if slices.Contains(r.Ports.List(), transport) {
		return fmt.Errorf("ulinkrpc.ports: %d is transport_port, whose connections are SystemSockets", transport)
	}
	if _, err := r.MasterKey(); err != nil {
		return fmt.Errorf("ulinkrpc.key: %w", err)
	}
	if !slices.Contains(KeyDerivations, r.KeyDerivation) {
		return fmt.Errorf("ulinkrpc.key_derivation: %q is not %s", r.KeyDerivation, strings.Join(KeyDerivations, " or "))
	}
	if !slices.Contains(Serializers, r.Serializer) {
		return fmt.Errorf("ulinkrpc.serializer: %q is not %s", r.Serializer, strings.Join(Serializers, ", "))
	}
	if !strings.HasPrefix(r.WSPath, "/") {
		return fmt.Errorf("ulinkrpc.ws_path: %q does not start with /", r.WSPath)
	}
	return nil
}

// SetKey sets Key from a flag's value (--ulinkrpc-key): the base64 master
// key, trimmed. A value that is no key (empty, or not base64) is an
// error that quotes it, escaped for the terminal.
func (r *RPCProfile) SetKey(key string) error {
	if k, err := (RPCProfile{Key: key}).MasterKey(); err != nil || k == nil {
		return fmt.Errorf("not a base64 key: %q", termsafe.Escape(key))
	}
	r.Key = strings.TrimSpace(key)
	return nil
}

// SetKeyDerivation sets KeyDerivation from a flag's value
// (--ulinkrpc-key-derivation): one of KeyDerivations.
func (r *RPCProfile) SetKeyDerivation(d string) error {
	if !slices.Contains(KeyDerivations, d) {
		return fmt.Errorf("%q is not %s", termsafe.Escape(d), strings.Join(KeyDerivations, " or "))
	}
	r.KeyDerivation = d
	return nil
}
