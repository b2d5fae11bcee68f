package infer

import (
	"sort"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/unturned"
)

// Candidate ranges: what Profile.Validate accepts, narrowed to what a
// capture could plausibly use (an enum widened by more than 6 bits, or a
// 6-bit negotiate mode, would be a protocol of its own). A profile outside
// them is not searched, so its keys are not claimed wrongly either: no
// candidate inside explains its capture.
const (
	maxExtraBits = 6
	maxIDBits    = 6 // Validate's bound
	maxModeBits  = 5
	maxTypeBits  = 16 // Validate's bound
)

// cand is one candidate profile of a stage and how many messages of the
// stage's scope it leaves inexact.
type cand struct {
	p     unturned.Profile
	free  uint32 // keys (keyBit) holding a filler no message decided
	score int
}

// stage is one step of the search, kept for the claims' margins.
type stage struct {
	sc    scope
	keys  []string // the keys it varies
	cands []cand
	min   int
}

type search struct {
	ev  *evaluator
	max int // candidate profiles at most
	n   int // candidate profiles evaluated
	// decodeBound is RunBudget's bound on message decodes (0: none),
	// for the undecided keys' reason.
	decodeBound int
	stages      []stage
	// cut is the first stage the bound stopped: the keys it and later
	// stages vary are not claimed.
	cut  int
	keys map[string]int // the stage that varies each searched key
	// games are the game versions that survived the widening stage, after
	// which one candidate stands for both.
	games map[string]bool
}

// run evaluates the candidates of a stage and returns those that leave
// the fewest messages inexact (all of them: a key is claimed only when
// every survivor agrees on it).
func (s *search) run(sc scope, keys []string, cs []cand) []cand {
	st := stage{sc: sc, keys: keys}
	for _, k := range keys {
		if _, ok := s.keys[k]; !ok {
			s.keys[k] = len(s.stages)
		}
	}
	seen := map[unturned.Profile]bool{}
	for _, c := range cs {
		if seen[c.p] || c.p.Validate() != nil {
			continue
		}
		seen[c.p] = true
		if s.n >= s.max {
			if s.cut < 0 {
				s.cut = len(s.stages)
			}
			break
		}
		c.score = s.ev.eval(&c.p, sc, nil, nil)
		if s.ev.over {
			// The decode bound stopped this reading: it is not scored.
			if s.cut < 0 {
				s.cut = len(s.stages)
			}
			break
		}
		s.n++
		st.cands = append(st.cands, c)
	}
	s.stages = append(s.stages, st)
	if len(st.cands) == 0 {
		return nil
	}
	st.min = st.cands[0].score
	for _, c := range st.cands {
		st.min = min(st.min, c.score)
	}
	s.stages[len(s.stages)-1].min = st.min
	var out []cand
	for _, c := range st.cands {
		if c.score == st.min {
			out = append(out, c)
		}
	}
	return out
}

// searchAll runs the stages in the order the wire lets the constants be
// decided (wire.md 4.1, 4.2, 4.3, 4.4, 6): the game version and the
// marker's ID-count width from the workshop handshake; the widening
// (extra_bits and the internal numbers each widened enum then shows); the
// listener header widths; the negotiate modes. Each stage tries its keys
// jointly with every survivor of the stages before, so keys that interact
// (extra_bits with the mode width, the ID-count width with the type-name
// width) are decided together.
func (s *search) searchAll(cur unturned.Profile) []cand {
	var cs []cand
	for _, g := range []string{"3.26", "3.24"} {
		for k := 1; k <= maxIDBits; k++ {
			p := cur
			p.Game, p.IDBitCountBitCount = g, k
			cs = append(cs, cand{p: p})
		}
	}
	surv := s.run(scopeHandshake, []string{"game"}, cs)
	if s.cut >= 0 {
		return surv
	}
	// The marker's ID-count width is judged again with the S→C
	// definitions (stage 3): until then one candidate per game carries the
	// widths the handshake allows.
	widths := map[string][]int{}
	var games []cand
	for _, c := range surv {
		if len(widths[c.p.Game]) == 0 {
			games = append(games, c)
		}
		widths[c.p.Game] = append(widths[c.p.Game], c.p.IDBitCountBitCount)
	}

	cs = nil
	for e := 1; e <= maxExtraBits; e++ {
		obs := s.enumValues(e)
		for _, sv := range games {
			p := sv.p
			p.ExtraBits = e
			for _, a := range numberPairs(&p, dissect.C2S, obs[dissect.C2S]) {
				for _, b := range numberPairs(&p, dissect.S2C, obs[dissect.S2C]) {
					q := p
					q.ServerInvokeListener, q.ServerNegotiate = a.v[0], a.v[1]
					q.ClientInvokeListener, q.ClientNegotiate = b.v[0], b.v[1]
					cs = append(cs, cand{p: q, free: sv.free | a.free | b.free})
				}
			}
		}
	}
	next := s.run(scopeEnums, []string{"extra_bits", "server_invoke_listener", "server_negotiate", "client_invoke_listener", "client_negotiate"}, cs)
	if s.cut >= 0 {
		return surv
	}
	// The game says nothing of what the later stages read (wire.md 3: the
	// holiday width, ReplicateConfig, Accepted's tail): survivors that
	// differ only in it go on as one, and the games that survived are kept
	// for the claims.
	surv = nil
	seen := map[unturned.Profile]bool{}
	s.games = map[string]bool{}
	for _, c := range next {
		s.games[c.p.Game] = true
		k := c.p
		k.Game = ""
		if !seen[k] {
			seen[k] = true
			surv = append(surv, c)
		}
	}

	cs = nil
	for _, sv := range surv {
		for _, k := range widths[sv.p.Game] {
			for t := 1; t <= maxTypeBits; t++ {
				c := sv
				c.p.IDBitCountBitCount, c.p.TypeNameBitCount = k, t
				cs = append(cs, c)
			}
		}
	}
	next = s.run(scopeHeaders, []string{"id_bit_count_bit_count", "type_name_bit_count"}, cs)
	if s.cut >= 0 {
		return surv
	}
	surv = next

	cs = nil
	for _, sv := range surv {
		for b := 1; b <= maxModeBits; b++ {
			p := sv.p
			p.NegotiateModeBitCount = b
			obs := s.modeValues(&p)
			for _, m := range modeSets(&p, obs) {
				q := p
				q.ModeTellClientMissingListener, q.ModeTellClientListenerID = m.v[0], m.v[1]
				q.ModeTellServerMissingListener, q.ModeRequestServerListenerID = m.v[2], m.v[3]
				cs = append(cs, cand{p: q, free: sv.free | m.free})
			}
		}
	}
	next = s.run(scopeNegotiate, []string{"negotiate_mode_bit_count", "mode_tell_client_missing_listener", "mode_tell_client_listener_id",
		"mode_tell_server_missing_listener", "mode_request_server_listener_id"}, cs)
	if s.cut >= 0 {
		return surv
	}
	return next
}

// enumValues reads every message after a USMN client's handshake (or of a
// connection whose start was not captured) widened by e bits in each
// direction, and returns the values that are not vanilla, most frequent
// first: the internal message numbers, when e is right (wire.md 4.2).
func (s *search) enumValues(e int) [2][]uint32 {
	var freq [2]map[uint32]int
	freq[0], freq[1] = map[uint32]int{}, map[uint32]int{}
	for _, c := range s.ev.s.conns {
		if c.start && !c.marker {
			continue
		}
		for _, m := range c.msgs {
			if m.det {
				continue
			}
			old, first := 4, uint32(9)
			if m.dir == dissect.S2C {
				old, first = 5, 18
			}
			r := netpak.NewReader(m.data)
			v := r.Bits(old)
			v |= r.Bits(e) << uint(old)
			if r.Err() == nil && v >= first {
				freq[m.dir][v]++
			}
		}
	}
	return [2][]uint32{top(freq[0], 2), top(freq[1], 2)}
}

// modeValues reads the mode of every negotiate message under p (its
// negotiate_mode_bit_count), per direction, most frequent first, with the
// widening the listener headers choose where the start was not captured.
func (s *search) modeValues(p *unturned.Profile) [2][]uint32 {
	var freq [2]map[uint32]int
	freq[0], freq[1] = map[uint32]int{}, map[uint32]int{}
	s.ev.eval(p, scopeHeaders, nil, func(m *smsg, d *unturned.Decoded) {
		if d.Kind != unturned.KindNegotiateListenerDetails {
			return
		}
		if v, ok := readBits(m.data, d.Enum.Bits, p.NegotiateModeBitCount); ok {
			freq[m.dir][v]++
		}
	})
	return [2][]uint32{top(freq[0], 2), top(freq[1], 2)}
}

func top(freq map[uint32]int, n int) []uint32 {
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
	return vals[:min(n, len(vals))]
}

// assign is one assignment of observed values to two or four keys, with
// the keys given a filler marked free.
type assign struct {
	v    [4]uint32
	free uint32
}

// numberPairs assigns the observed internal numbers of direction d to
// (invoke, negotiate) both ways round; a number no message showed gets a
// filler and stays free (undecided).
func numberPairs(p *unturned.Profile, d dissect.Dir, vals []uint32) []assign {
	inv, neg := keyBit("server_invoke_listener"), keyBit("server_negotiate")
	if d == dissect.S2C {
		inv, neg = keyBit("client_invoke_listener"), keyBit("client_negotiate")
	}
	valid := func(v uint32) bool {
		old := uint(p.EnumBits(d))
		return v >= uint32(map[dissect.Dir]int{dissect.C2S: p.ServerMessageCount(), dissect.S2C: p.ClientMessageCount()}[d]) &&
			v < 1<<(old+uint(p.ExtraBits)) && v&(1<<old-1) != p.DetectionMessage(d)
	}
	var ok []uint32
	for _, v := range vals {
		if valid(v) {
			ok = append(ok, v)
		}
	}
	filler := func(avoid uint32) uint32 {
		for v := uint32(1) << uint(p.EnumBits(d)); v < 1<<uint(p.WidenedBits(d)); v++ {
			if valid(v) && v != avoid {
				return v
			}
		}
		return avoid // no room: the candidate is invalid (two equal numbers) and skipped
	}
	switch len(ok) {
	case 0:
		a := filler(^uint32(0))
		return []assign{{v: [4]uint32{a, filler(a)}, free: inv | neg}}
	case 1:
		f := filler(ok[0])
		return []assign{{v: [4]uint32{ok[0], f}, free: neg}, {v: [4]uint32{f, ok[0]}, free: inv}}
	}
	return []assign{{v: [4]uint32{ok[0], ok[1]}}, {v: [4]uint32{ok[1], ok[0]}}}
}

// modeSets assigns the observed mode values to the modes of their
// direction (S→C: TellClientMissingListener, TellClientListenerId; C→S:
// TellServerMissingListener, RequestServerListenerId), each way round;
// modes no message showed get free values and stay undecided.
func modeSets(p *unturned.Profile, obs [2][]uint32) []assign {
	keys := [4]uint32{keyBit("mode_tell_client_missing_listener"), keyBit("mode_tell_client_listener_id"),
		keyBit("mode_tell_server_missing_listener"), keyBit("mode_request_server_listener_id")}
	limit := uint32(1) << uint(p.NegotiateModeBitCount)
	// roles[d] lists the (first, second) mode values of direction d; -1 a
	// filler.
	roles := func(vals []uint32) [][2]int64 {
		var ok []uint32
		for _, v := range vals {
			if v < limit {
				ok = append(ok, v)
			}
		}
		switch len(ok) {
		case 0:
			return [][2]int64{{-1, -1}}
		case 1:
			return [][2]int64{{int64(ok[0]), -1}, {-1, int64(ok[0])}}
		}
		return [][2]int64{{int64(ok[0]), int64(ok[1])}, {int64(ok[1]), int64(ok[0])}}
	}
	var out []assign
	for _, s2c := range roles(obs[dissect.S2C]) {
		for _, c2s := range roles(obs[dissect.C2S]) {
			vs := [4]int64{s2c[0], s2c[1], c2s[0], c2s[1]}
			var a assign
			used := map[uint32]bool{}
			dup := false
			for _, v := range vs {
				if v >= 0 {
					dup = dup || used[uint32(v)]
					used[uint32(v)] = true
				}
			}
			if dup {
				continue
			}
			for i, v := range vs {
				if v >= 0 {
					a.v[i] = uint32(v)
					continue
				}
				a.free |= keys[i]
				for f := uint32(0); f < limit; f++ {
					if !used[f] {
						a.v[i], used[f] = f, true
						break
					}
				}
			}
			out = append(out, a)
		}
	}
	return out
}
