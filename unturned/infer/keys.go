package infer

import "github.com/usmnscope/usmnscope/unturned"

// key is one profile key the search decides: its wire.md 6 name, and how
// a candidate's value is read and set as Run claims it (string for game,
// uint32 for method counts, internal numbers, modes and the magic, int64
// for the port and the widths, as TOML reads them).
type key struct {
	name string
	get  func(*unturned.Profile) any
	set  func(*unturned.Profile, any)
}

func strKey(name string, f func(*unturned.Profile) *string) key {
	return key{name, func(p *unturned.Profile) any { return *f(p) }, func(p *unturned.Profile, v any) { *f(p) = v.(string) }}
}

func u32Key(name string, f func(*unturned.Profile) *uint32) key {
	return key{name, func(p *unturned.Profile) any { return *f(p) }, func(p *unturned.Profile, v any) { *f(p) = v.(uint32) }}
}

func portKey(name string, f func(*unturned.Profile) *uint16) key {
	return key{name, func(p *unturned.Profile) any { return int64(*f(p)) }, func(p *unturned.Profile, v any) { *f(p) = uint16(v.(int64)) }}
}

func intKey(name string, f func(*unturned.Profile) *int) key {
	return key{name, func(p *unturned.Profile) any { return int64(*f(p)) }, func(p *unturned.Profile, v any) { *f(p) = int(v.(int64)) }}
}

// keys in wire.md 6 order: the one list of what the search decides.
var keys = []key{
	strKey("game", func(p *unturned.Profile) *string { return &p.Game }),
	portKey("transport_port", func(p *unturned.Profile) *uint16 { return &p.TransportPort }),
	u32Key("client_methods", func(p *unturned.Profile) *uint32 { return &p.ClientMethods }),
	u32Key("server_methods", func(p *unturned.Profile) *uint32 { return &p.ServerMethods }),
	intKey("extra_bits", func(p *unturned.Profile) *int { return &p.ExtraBits }),
	u32Key("server_invoke_listener", func(p *unturned.Profile) *uint32 { return &p.ServerInvokeListener }),
	u32Key("server_negotiate", func(p *unturned.Profile) *uint32 { return &p.ServerNegotiate }),
	u32Key("client_invoke_listener", func(p *unturned.Profile) *uint32 { return &p.ClientInvokeListener }),
	u32Key("client_negotiate", func(p *unturned.Profile) *uint32 { return &p.ClientNegotiate }),
	intKey("id_bit_count_bit_count", func(p *unturned.Profile) *int { return &p.IDBitCountBitCount }),
	intKey("type_name_bit_count", func(p *unturned.Profile) *int { return &p.TypeNameBitCount }),
	intKey("negotiate_mode_bit_count", func(p *unturned.Profile) *int { return &p.NegotiateModeBitCount }),
	u32Key("mode_tell_client_missing_listener", func(p *unturned.Profile) *uint32 { return &p.ModeTellClientMissingListener }),
	u32Key("mode_tell_client_listener_id", func(p *unturned.Profile) *uint32 { return &p.ModeTellClientListenerID }),
	u32Key("mode_tell_server_missing_listener", func(p *unturned.Profile) *uint32 { return &p.ModeTellServerMissingListener }),
	u32Key("mode_request_server_listener_id", func(p *unturned.Profile) *uint32 { return &p.ModeRequestServerListenerID }),
	u32Key("marker_magic", func(p *unturned.Profile) *uint32 { return &p.MarkerMagic }),
}

// keyIndex is each key's place in keys.
var keyIndex = func() map[string]int {
	m := make(map[string]int, len(keys))
	for i, k := range keys {
		m[k.name] = i
	}
	return m
}()

// keyOrder is a key's place in wire.md 6 order; an unknown key sorts last.
func keyOrder(k string) int {
	if i, ok := keyIndex[k]; ok {
		return i
	}
	return len(keys)
}

// get returns a key's value as Run claims it; nil for an unknown key.
func get(p *unturned.Profile, name string) any {
	if i, ok := keyIndex[name]; ok {
		return keys[i].get(p)
	}
	return nil
}

// set sets a key to a value as get returns it; an unknown key is ignored.
func set(p *unturned.Profile, name string, val any) {
	if i, ok := keyIndex[name]; ok {
		keys[i].set(p, val)
	}
}

// Get returns the value of a profile key as Run claims it (for tests and
// the JSON output): string, uint32 or int64.
func Get(p *unturned.Profile, key string) any { return get(p, key) }

// keyBit is a key's bit in a candidate's free mask.
func keyBit(key string) uint32 { return 1 << uint(keyOrder(key)) }

// Set sets a profile key to a value as Get returns it (tests).
func Set(p *unturned.Profile, key string, val any) { set(p, key, val) }
