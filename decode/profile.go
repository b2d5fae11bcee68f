package decode

import (
	"bytes"
	"fmt"
	"math/bits"
	"strings"

	"github.com/BurntSushi/toml"
)

// Profile holds the protocol constants that the seeds leave open (wire.md
// section 6). Default returns the built-in values; ParseProfile overrides
// them from a TOML file whose keys are the names of wire.md 6.1.
type Profile struct {
	Name string `toml:"-"` // "default", or the file it came from

	Game          string `toml:"game"`
	TransportPort uint16 `toml:"transport_port"`
	QueryPort     uint16 `toml:"query_port"`
	ClientMethods uint32 `toml:"client_methods"`
	ServerMethods uint32 `toml:"server_methods"`
	ExtraBits     int    `toml:"extra_bits"`

	ServerInvokeListener uint32 `toml:"server_invoke_listener"`
	ServerNegotiate      uint32 `toml:"server_negotiate"`
	ClientInvokeListener uint32 `toml:"client_invoke_listener"`
	ClientNegotiate      uint32 `toml:"client_negotiate"`

	IDBitCountBitCount    int `toml:"id_bit_count_bit_count"`
	TypeNameBitCount      int `toml:"type_name_bit_count"`
	NegotiateModeBitCount int `toml:"negotiate_mode_bit_count"`

	ModeTellClientMissingListener uint32 `toml:"mode_tell_client_missing_listener"`
	ModeTellClientListenerID      uint32 `toml:"mode_tell_client_listener_id"`
	ModeTellServerMissingListener uint32 `toml:"mode_tell_server_missing_listener"`
	ModeRequestServerListenerID   uint32 `toml:"mode_request_server_listener_id"`

	MarkerMagic uint32 `toml:"marker_magic"`
}

// Default returns the default profile of wire.md section 6.
func Default() *Profile {
	return &Profile{
		Name:                          "default",
		Game:                          "3.26",
		TransportPort:                 27016,
		QueryPort:                     27015,
		ClientMethods:                 272,
		ServerMethods:                 101,
		ExtraBits:                     1,
		ServerInvokeListener:          17,
		ServerNegotiate:               18,
		ClientInvokeListener:          32,
		ClientNegotiate:               33,
		IDBitCountBitCount:            5,
		TypeNameBitCount:              11,
		NegotiateModeBitCount:         2,
		ModeTellClientMissingListener: 0,
		ModeTellClientListenerID:      1,
		ModeTellServerMissingListener: 2,
		ModeRequestServerListenerID:   3,
		MarkerMagic:                   0x4E4D5355,
	}
}

// ParseProfile reads a TOML profile (wire.md 6.1) over the defaults. Unknown
// keys and invalid values are errors that name the key.
func ParseProfile(name string, data []byte) (*Profile, error) {
	p := Default()
	p.Name = name
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(p)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		// A table header ("[extra]") is listed along with its keys; name
		// only the keys, which are what the user mistyped.
		var keys []string
	outer:
		for _, k := range und {
			for _, o := range und {
				if strings.HasPrefix(o.String(), k.String()+".") {
					continue outer
				}
			}
			keys = append(keys, k.String())
		}
		return nil, fmt.Errorf("profile %s: unknown key %s", name, strings.Join(keys, ", "))
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("profile %s: %w", name, err)
	}
	return p, nil
}

// Validate checks that the constants are usable: widths in range and
// internal message numbers that a widened reader can tell from the detection
// message (wire.md 6).
func (p *Profile) Validate() error {
	if p.Game != "3.26" && p.Game != "3.24" {
		return fmt.Errorf("game: %q is not \"3.26\" or \"3.24\"", p.Game)
	}
	widths := []struct {
		key       string
		v, lo, hi int
	}{
		{"extra_bits", p.ExtraBits, 1, 16},
		{"id_bit_count_bit_count", p.IDBitCountBitCount, 1, 6},
		{"type_name_bit_count", p.TypeNameBitCount, 1, 16},
		{"negotiate_mode_bit_count", p.NegotiateModeBitCount, 1, 16},
	}
	for _, w := range widths {
		if w.v < w.lo || w.v > w.hi {
			return fmt.Errorf("%s: %d is outside %d..%d", w.key, w.v, w.lo, w.hi)
		}
	}
	for _, m := range []struct {
		key string
		v   uint32
		dir Dir
	}{
		{"server_invoke_listener", p.ServerInvokeListener, C2S},
		{"server_negotiate", p.ServerNegotiate, C2S},
		{"client_invoke_listener", p.ClientInvokeListener, S2C},
		{"client_negotiate", p.ClientNegotiate, S2C},
	} {
		old := p.EnumBits(m.dir)
		if m.v >= 1<<uint(old+p.ExtraBits) {
			return fmt.Errorf("%s: %d does not fit in %d widened bits", m.key, m.v, old+p.ExtraBits)
		}
		if m.v&(1<<uint(old)-1) == p.DetectionMessage(m.dir) {
			return fmt.Errorf("%s: %d has the low %d bits of the detection message", m.key, m.v, old)
		}
	}
	// The negotiate modes are read in negotiate_mode_bit_count bits
	// (wire.md 4.4): each must fit, and no two may share a value.
	modes := []struct {
		key string
		v   uint32
	}{
		{"mode_tell_client_missing_listener", p.ModeTellClientMissingListener},
		{"mode_tell_client_listener_id", p.ModeTellClientListenerID},
		{"mode_tell_server_missing_listener", p.ModeTellServerMissingListener},
		{"mode_request_server_listener_id", p.ModeRequestServerListenerID},
	}
	for i, m := range modes {
		if uint64(m.v) >= 1<<uint(p.NegotiateModeBitCount) {
			return fmt.Errorf("%s: %d does not fit in %d bits (negotiate_mode_bit_count)", m.key, m.v, p.NegotiateModeBitCount)
		}
		for _, o := range modes[:i] {
			if o.v == m.v {
				return fmt.Errorf("%s: %d equals %s", m.key, m.v, o.key)
			}
		}
	}
	if p.ServerInvokeListener == p.ServerNegotiate {
		return fmt.Errorf("server_negotiate: %d equals server_invoke_listener", p.ServerNegotiate)
	}
	if p.ClientInvokeListener == p.ClientNegotiate {
		return fmt.Errorf("client_negotiate: %d equals client_invoke_listener", p.ClientNegotiate)
	}
	return nil
}

// ClientMessageCount is the number of EClientMessage values in the profile's
// game version (wire.md 3: 19 in 3.26, 18 in 3.24).
func (p *Profile) ClientMessageCount() int {
	if p.Game == "3.24" {
		return 18
	}
	return 19
}

// ServerMessageCount is the number of EServerMessage values (wire.md 3).
func (p *Profile) ServerMessageCount() int { return 9 }

// EnumBits is the vanilla width of the message enum read in direction d:
// CountBits of the highest value (wire.md 1.3, 3).
func (p *Profile) EnumBits(d Dir) int {
	if d == C2S {
		return bits.Len32(uint32(p.ServerMessageCount() - 1))
	}
	return bits.Len32(uint32(p.ClientMessageCount() - 1))
}

// WidenedBits is the enum width once widened (wire.md 4.2).
func (p *Profile) WidenedBits(d Dir) int { return p.EnumBits(d) + p.ExtraBits }

// DetectionMessage is the enum value of the message that carries the marker
// in direction d: GetWorkshopFiles (0) C→S, DownloadWorkshopFiles (7) S→C.
func (p *Profile) DetectionMessage(d Dir) uint32 {
	if d == C2S {
		return 0
	}
	return 7
}

// HolidayBits is the width of ENPCHoliday in DownloadWorkshopFiles (wire.md 3).
func (p *Profile) HolidayBits() int {
	if p.Game == "3.24" {
		return 3
	}
	return 4
}

// TOML returns the profile as a TOML document with every key.
func (p *Profile) TOML() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# usmnscope profile: %s\n", p.Name)
	_ = toml.NewEncoder(&b).Encode(p)
	return b.String()
}
