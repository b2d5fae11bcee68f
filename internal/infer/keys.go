package infer

import "github.com/usmnscope/usmnscope/unturned"

// keys in wire.md 6 order, with their getters and setters.
var keyNames = []string{"game", "transport_port", "client_methods", "server_methods", "extra_bits",
	"server_invoke_listener", "server_negotiate", "client_invoke_listener", "client_negotiate",
	"id_bit_count_bit_count", "type_name_bit_count", "negotiate_mode_bit_count",
	"mode_tell_client_missing_listener", "mode_tell_client_listener_id", "mode_tell_server_missing_listener", "mode_request_server_listener_id",
	"marker_magic"}

func keyOrder(k string) int {
	for i, n := range keyNames {
		if n == k {
			return i
		}
	}
	return len(keyNames)
}

// fields maps each key to its profile field; ints are TOML int64.
func fields(p *unturned.Profile) map[string]any {
	return map[string]any{
		"game": &p.Game, "transport_port": &p.TransportPort, "extra_bits": &p.ExtraBits,
		"client_methods": &p.ClientMethods, "server_methods": &p.ServerMethods,
		"server_invoke_listener": &p.ServerInvokeListener, "server_negotiate": &p.ServerNegotiate,
		"client_invoke_listener": &p.ClientInvokeListener, "client_negotiate": &p.ClientNegotiate,
		"id_bit_count_bit_count": &p.IDBitCountBitCount, "type_name_bit_count": &p.TypeNameBitCount,
		"negotiate_mode_bit_count":          &p.NegotiateModeBitCount,
		"mode_tell_client_missing_listener": &p.ModeTellClientMissingListener, "mode_tell_client_listener_id": &p.ModeTellClientListenerID,
		"mode_tell_server_missing_listener": &p.ModeTellServerMissingListener, "mode_request_server_listener_id": &p.ModeRequestServerListenerID,
		"marker_magic": &p.MarkerMagic,
	}
}

// get returns a key's value: string for game, uint32 for numbers, modes,
// method counts and the magic, int64 for widths and the port. A switch,
// not fields: the claims read every candidate's keys.
func get(p *unturned.Profile, key string) any {
	switch key {
	case "game":
		return p.Game
	case "transport_port":
		return int64(p.TransportPort)
	case "client_methods":
		return p.ClientMethods
	case "server_methods":
		return p.ServerMethods
	case "extra_bits":
		return int64(p.ExtraBits)
	case "server_invoke_listener":
		return p.ServerInvokeListener
	case "server_negotiate":
		return p.ServerNegotiate
	case "client_invoke_listener":
		return p.ClientInvokeListener
	case "client_negotiate":
		return p.ClientNegotiate
	case "id_bit_count_bit_count":
		return int64(p.IDBitCountBitCount)
	case "type_name_bit_count":
		return int64(p.TypeNameBitCount)
	case "negotiate_mode_bit_count":
		return int64(p.NegotiateModeBitCount)
	case "mode_tell_client_missing_listener":
		return p.ModeTellClientMissingListener
	case "mode_tell_client_listener_id":
		return p.ModeTellClientListenerID
	case "mode_tell_server_missing_listener":
		return p.ModeTellServerMissingListener
	case "mode_request_server_listener_id":
		return p.ModeRequestServerListenerID
	case "marker_magic":
		return p.MarkerMagic
	}
	return nil
}

func set(p *unturned.Profile, key string, val any) {
	switch v := fields(p)[key].(type) {
	case *string:
		*v = val.(string)
	case *uint32:
		*v = val.(uint32)
	case *uint16:
		*v = uint16(val.(int64))
	case *int:
		*v = int(val.(int64))
	}
}

// Get returns the value of a profile key as Run claims it (for tests and
// the JSON output): string, uint32 or int64.
func Get(p *unturned.Profile, key string) any { return get(p, key) }

// keyBit is a key's bit in a candidate's free mask.
func keyBit(key string) uint32 { return 1 << uint(keyOrder(key)) }

// Set sets a profile key to a value as Get returns it (tests).
func Set(p *unturned.Profile, key string, val any) { set(p, key, val) }
