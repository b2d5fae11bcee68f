package infer

import (
	"sort"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// Candidate ranges: what Profile.Validate accepts, narrowed to what a
// capture could plausibly use (an enum widened by more than 6 bits, or a
// 5-bit negotiate mode, would be a protocol of its own).
const (
	maxExtraBits = 6
	maxIDBits    = 6
	maxModeBits  = 4
	maxTypeBits  = 16
)

func with(cur *unturned.Profile, f func(p *unturned.Profile)) *unturned.Profile {
	p := *cur
	f(&p)
	return &p
}

func gameCands(_ *search, cur *unturned.Profile) []*unturned.Profile {
	out := []*unturned.Profile{cur}
	for _, g := range []string{"3.26", "3.24"} {
		out = append(out, with(cur, func(p *unturned.Profile) { p.Game = g }))
	}
	return out
}

func idCands(_ *search, cur *unturned.Profile) []*unturned.Profile {
	out := []*unturned.Profile{cur}
	for b := 1; b <= maxIDBits; b++ {
		out = append(out, with(cur, func(p *unturned.Profile) { p.IDBitCountBitCount = b }))
	}
	return out
}

func typeNameCands(_ *search, cur *unturned.Profile) []*unturned.Profile {
	out := []*unturned.Profile{cur}
	for b := 1; b <= maxTypeBits; b++ {
		out = append(out, with(cur, func(p *unturned.Profile) { p.TypeNameBitCount = b }))
	}
	return out
}

// ruleNumbers gives the internal message numbers of wire.md 6's rule for
// a width: the first two values ≥ 2^old whose low old bits differ from the
// detection message.
func ruleNumbers(p *unturned.Profile, d dissect.Dir) (uint32, uint32) {
	old := uint32(p.EnumBits(d))
	var got []uint32
	for v := uint32(1) << old; len(got) < 2; v++ {
		if v&(1<<old-1) != p.DetectionMessage(d) {
			got = append(got, v)
		}
	}
	return got[0], got[1]
}

// observed returns the values of the widened enums read in direction d
// that are not vanilla messages, most frequent first (at most two).
func observed(s *search, p *unturned.Profile, d dissect.Dir, count int) []uint32 {
	ix := s.index(p)
	if ix == nil {
		return nil
	}
	freq := map[uint32]int{}
	for n := 1; n <= ix.Len(); n++ {
		m := ix.Message(n)
		if m == nil || m.Dir != d || !m.Enum.Widened || int(m.Enum.Value) < count {
			continue
		}
		freq[m.Enum.Value]++
	}
	vals := make([]uint32, 0, len(freq))
	for v := range freq {
		vals = append(vals, v)
	}
	sort.Slice(vals, func(i, j int) bool {
		if freq[vals[i]] != freq[vals[j]] {
			return freq[vals[i]] > freq[vals[j]]
		}
		return vals[i] < vals[j]
	})
	return vals[:min(2, len(vals))]
}

// pairs returns the (invoke, negotiate) assignments the observed values
// allow, the current pair first.
func pairs(vals []uint32, inv, neg uint32) [][2]uint32 {
	out := [][2]uint32{{inv, neg}}
	switch len(vals) {
	case 1:
		out = append(out, [2]uint32{vals[0], neg}, [2]uint32{inv, vals[0]})
	case 2:
		out = append(out, [2]uint32{vals[0], vals[1]}, [2]uint32{vals[1], vals[0]})
	}
	return out
}

// widenCands tries each extra_bits with the internal numbers the widened
// enums then show, both ways round.
func widenCands(s *search, cur *unturned.Profile) []*unturned.Profile {
	out := []*unturned.Profile{cur}
	for e := 1; e <= maxExtraBits; e++ {
		p := with(cur, func(p *unturned.Profile) { p.ExtraBits = e })
		if p.Validate() != nil {
			p.ServerInvokeListener, p.ServerNegotiate = ruleNumbers(p, dissect.C2S)
			p.ClientInvokeListener, p.ClientNegotiate = ruleNumbers(p, dissect.S2C)
		}
		cs := pairs(observed(s, p, dissect.C2S, p.ServerMessageCount()), p.ServerInvokeListener, p.ServerNegotiate)
		sc := pairs(observed(s, p, dissect.S2C, p.ClientMessageCount()), p.ClientInvokeListener, p.ClientNegotiate)
		for _, c := range cs {
			for _, v := range sc {
				out = append(out, with(p, func(p *unturned.Profile) {
					p.ServerInvokeListener, p.ServerNegotiate = c[0], c[1]
					p.ClientInvokeListener, p.ClientNegotiate = v[0], v[1]
				}))
			}
		}
	}
	return out
}

// modeValues returns the raw mode values of the negotiate messages read in
// direction d, most frequent first (at most two).
func modeValues(s *search, p *unturned.Profile, d dissect.Dir) []uint32 {
	ix := s.index(p)
	if ix == nil {
		return nil
	}
	freq := map[uint32]int{}
	for n := 1; n <= ix.Len(); n++ {
		m := ix.Message(n)
		if m == nil || m.Dir != d || m.Kind != unturned.KindNegotiateListenerDetails {
			continue
		}
		if v, ok := readBits(m.Data, m.Enum.Bits, p.NegotiateModeBitCount); ok {
			freq[v]++
		}
	}
	vals := make([]uint32, 0, len(freq))
	for v := range freq {
		vals = append(vals, v)
	}
	sort.Slice(vals, func(i, j int) bool {
		if freq[vals[i]] != freq[vals[j]] {
			return freq[vals[i]] > freq[vals[j]]
		}
		return vals[i] < vals[j]
	})
	return vals[:min(2, len(vals))]
}

// modeCands tries each negotiate_mode_bit_count with the mode values the
// negotiate messages then show, both ways round per direction; modes the
// capture does not show take free values.
func modeCands(s *search, cur *unturned.Profile) []*unturned.Profile {
	out := []*unturned.Profile{cur}
	for b := 1; b <= maxModeBits; b++ {
		p := with(cur, func(p *unturned.Profile) { p.NegotiateModeBitCount = b })
		if p.Validate() != nil {
			p.ModeTellClientMissingListener, p.ModeTellClientListenerID = 0, 1
			p.ModeTellServerMissingListener, p.ModeRequestServerListenerID = 2, 3
		}
		sc := pairs(modeValues(s, p, dissect.S2C), p.ModeTellClientMissingListener, p.ModeTellClientListenerID)
		cs := pairs(modeValues(s, p, dissect.C2S), p.ModeTellServerMissingListener, p.ModeRequestServerListenerID)
		for _, a := range sc {
			for _, c := range cs {
				q := with(p, func(q *unturned.Profile) {
					q.ModeTellClientMissingListener, q.ModeTellClientListenerID = a[0], a[1]
					q.ModeTellServerMissingListener, q.ModeRequestServerListenerID = c[0], c[1]
				})
				fillModes(q, a, c)
				out = append(out, q)
			}
		}
	}
	return out
}

// fillModes moves a mode that collides with an observed one of the other
// direction to a free value, so that the candidate is valid.
func fillModes(p *unturned.Profile, s2c, c2s [2]uint32) {
	modes := []*uint32{&p.ModeTellClientMissingListener, &p.ModeTellClientListenerID, &p.ModeTellServerMissingListener, &p.ModeRequestServerListenerID}
	used := map[uint32]bool{}
	limit := uint32(1) << uint(p.NegotiateModeBitCount)
	for _, m := range modes {
		if used[*m] || *m >= limit {
			for v := uint32(0); v < limit; v++ {
				if !used[v] {
					*m = v
					break
				}
			}
		}
		used[*m] = true
	}
}

// seenNumber: an internal message number is shown when a message of that
// number was read widened in its direction.
func seenNumber(s *search, p *unturned.Profile, key string) bool {
	if key == "extra_bits" {
		return true
	}
	ix := s.index(p)
	if ix == nil {
		return false
	}
	d, v := dissect.C2S, get(p, key).(uint32)
	if key == "client_invoke_listener" || key == "client_negotiate" {
		d = dissect.S2C
	}
	for n := 1; n <= ix.Len(); n++ {
		if m := ix.Message(n); m != nil && m.Dir == d && m.Enum.Widened && m.Enum.Value == v {
			return true
		}
	}
	return false
}

// seenMode: a mode value is shown when a negotiate message carries it in
// its direction; the width when any negotiate message was read.
func seenMode(s *search, p *unturned.Profile, key string) bool {
	ix := s.index(p)
	if ix == nil {
		return false
	}
	d, want := dissect.S2C, uint32(0)
	switch key {
	case "negotiate_mode_bit_count":
		d = 255
	case "mode_tell_server_missing_listener", "mode_request_server_listener_id":
		d, want = dissect.C2S, get(p, key).(uint32)
	default:
		want = get(p, key).(uint32)
	}
	for n := 1; n <= ix.Len(); n++ {
		m := ix.Message(n)
		if m == nil || m.Kind != unturned.KindNegotiateListenerDetails {
			continue
		}
		if d == 255 {
			return true
		}
		if v, ok := readBits(m.Data, m.Enum.Bits, p.NegotiateModeBitCount); ok && m.Dir == d && v == want {
			return true
		}
	}
	return false
}

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
		"server_invoke_listener": &p.ServerInvokeListener, "server_negotiate": &p.ServerNegotiate,
		"client_invoke_listener": &p.ClientInvokeListener, "client_negotiate": &p.ClientNegotiate,
		"id_bit_count_bit_count": &p.IDBitCountBitCount, "type_name_bit_count": &p.TypeNameBitCount,
		"negotiate_mode_bit_count":          &p.NegotiateModeBitCount,
		"mode_tell_client_missing_listener": &p.ModeTellClientMissingListener, "mode_tell_client_listener_id": &p.ModeTellClientListenerID,
		"mode_tell_server_missing_listener": &p.ModeTellServerMissingListener, "mode_request_server_listener_id": &p.ModeRequestServerListenerID,
		"marker_magic": &p.MarkerMagic,
	}
}

// get returns a key's value: string for game, uint32 for numbers, modes
// and the magic, int64 for widths and the port.
func get(p *unturned.Profile, key string) any {
	switch v := fields(p)[key].(type) {
	case *string:
		return *v
	case *uint32:
		return *v
	case *uint16:
		return int64(*v)
	case *int:
		return int64(*v)
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
