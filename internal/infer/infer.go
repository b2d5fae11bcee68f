package infer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// Decoder decodes the capture under a profile and returns the finished
// index. Run calls it once per candidate profile.
type Decoder func(p *unturned.Profile) *session.Index

// Key is one claimed profile key with its evidence (outputs.md "profile
// infer").
type Key struct {
	Name       string  // the TOML key of wire.md 6.1
	Value      any     // string, int64 or uint32 as the TOML value
	Confidence float64 // in (0, 1]
	Text       string  // the evidence
}

// Result is what Run found.
type Result struct {
	Profile *unturned.Profile // the starting profile with every claimed key set
	Keys    []Key             // the claimed keys, in wire.md 6 order
	Active  Score             // the starting profile's decode
	Best    Score             // the inferred profile's decode
	Decodes int               // profiles decoded
	// Candidates counts the distinct candidate profiles the search
	// scored (or would have, past its bound).
	Candidates int
	// Undecided gives each searched key the capture does not decide
	// the reason, in words (outputs.md "undecided").
	Undecided map[string]string
}

// Claimed returns the key named name, if claimed.
func (r *Result) Claimed(name string) (Key, bool) {
	for _, k := range r.Keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// search is one inference: the decoder and the scores of the profiles
// decoded so far (Profile is comparable).
type search struct {
	dec    Decoder
	scores map[unturned.Profile]Score
	// The last decode is kept for the observations made right after it
	// (observed, modeValues, the seen checks); older ones are decoded
	// again when asked for, so that a run holds one index at a time.
	lastP  unturned.Profile
	lastIx *session.Index
	max    int
	// Decodes counts the profiles decoded (a run stops trying new ones
	// past its bound).
	decodes int
	// considered holds every candidate profile ranked, for Candidates.
	considered map[unturned.Profile]bool
	// why holds, for each searched key not claimed, the last reason.
	why map[string]string
}

// maxCandidates bounds the decodes of one run whatever the capture holds:
// a group tries at most a few dozen profiles.
const maxCandidates = 1500

func (s *search) eval(p *unturned.Profile) (Score, bool) {
	if p.Validate() != nil {
		return Score{}, false
	}
	if sc, ok := s.scores[*p]; ok {
		return sc, true
	}
	if s.decodes >= s.max {
		return Score{}, false
	}
	sc := score(s.decode(p))
	s.scores[*p] = sc
	return sc, true
}

func (s *search) decode(p *unturned.Profile) *session.Index {
	if s.lastIx != nil && s.lastP == *p {
		return s.lastIx
	}
	s.decodes++
	s.lastP, s.lastIx = *p, s.dec(p)
	return s.lastIx
}

// index returns p's decode, or nil past the bound.
func (s *search) index(p *unturned.Profile) *session.Index {
	if _, ok := s.eval(p); !ok {
		return nil
	}
	if s.lastIx == nil || s.lastP != *p {
		if s.decodes >= s.max {
			return nil
		}
	}
	return s.decode(p)
}

// cand is a candidate profile of a group and its score.
type cand struct {
	p *unturned.Profile
	s Score
}

// group is one dimension of the search: candidates around the current
// profile and the keys they vary.
type group struct {
	keys  []string
	cands func(s *search, cur *unturned.Profile) []*unturned.Profile
	// seen says whether the capture shows a key's value (a message of
	// that kind); nil: the scores alone decide.
	seen func(s *search, p *unturned.Profile, key string) bool
}

// groups in search order: the enum widths first, since every USMN
// message is read through them; game last but one, since with the enums
// misread a wrong game can look better.
var groups = []group{
	{keys: []string{"extra_bits", "server_invoke_listener", "server_negotiate", "client_invoke_listener", "client_negotiate"}, cands: widenCands, seen: seenNumber},
	{keys: []string{"id_bit_count_bit_count"}, cands: idCands},
	{keys: []string{"negotiate_mode_bit_count", "mode_tell_client_missing_listener", "mode_tell_client_listener_id", "mode_tell_server_missing_listener", "mode_request_server_listener_id"}, cands: modeCands, seen: seenMode},
	{keys: []string{"game"}, cands: gameCands},
	{keys: []string{"type_name_bit_count"}, cands: typeNameCands},
}

// maxPasses bounds the rounds of the search; it stops earlier when a round
// changes nothing.
const maxPasses = 4

// Run searches the profile that best explains the capture dec decodes,
// starting from base (the active profile).
func Run(base *unturned.Profile, dec Decoder) *Result { return RunBounded(base, dec, maxCandidates) }

// RunBounded is Run trying at most maxDecodes profiles: past the bound
// candidates are not tried, so a run costs at most that many decodes
// whatever the capture holds.
func RunBounded(base *unturned.Profile, dec Decoder, maxDecodes int) *Result {
	s := &search{dec: dec, scores: map[unturned.Profile]Score{}, max: maxDecodes,
		considered: map[unturned.Profile]bool{}, why: map[string]string{
			// No profile describes an InvokeMethod's parameters, so what
			// follows the method index cannot tell its width.
			"client_methods": "an InvokeMethod's parameters are not described by any profile, so the capture cannot tell the method index width",
			"server_methods": "an InvokeMethod's parameters are not described by any profile, so the capture cannot tell the method index width",
		}}
	cur := *base
	res := &Result{}
	res.Active, _ = s.eval(&cur)
	wire := s.sniff(s.index(&cur), &cur)
	// One start per negotiate mode width besides the sniffed profile: the
	// extra enum bits and the mode bits are read back to back, so a start
	// with the wrong mode width can settle on an enum width that is off by
	// the same amount (a local optimum of the descent).
	best := s.descend(cur)
	for b := 2; b <= maxModeBits; b++ {
		start := cur
		start.NegotiateModeBitCount = b
		start.ModeTellClientMissingListener, start.ModeTellClientListenerID = 0, 1
		start.ModeTellServerMissingListener, start.ModeRequestServerListenerID = 2, 3
		if start.Validate() != nil || start == cur {
			continue
		}
		if got := s.descend(start); mustScore(s, &got).Bad < mustScore(s, &best).Bad {
			best = got
		}
	}
	cur = best
	res.Keys = append(res.Keys, wire...)
	// Searched keys are claimed only when their profile decodes the
	// capture cleanly: without an error or an Unknown message. A capture
	// no profile explains (garbage, a lost segment) decides nothing.
	if sc := mustScore(s, &cur); sc.Broken == 0 {
		for _, g := range groups {
			cs := s.rank(g.cands(s, &cur))
			res.Keys = append(res.Keys, s.claims(g, cs)...)
		}
	} else {
		for _, g := range groups {
			for _, k := range g.keys {
				s.why[k] = fmt.Sprintf("no candidate profile decodes the capture cleanly: %d messages still have an error or an unknown name", sc.Broken)
			}
		}
	}
	p := *base
	for _, k := range res.Keys {
		set(&p, k.Name, k.Value)
	}
	if p.Validate() != nil {
		// The claims only mix values of valid candidates, but keep the
		// promise that the profile printed is usable.
		p = cur
	}
	res.Profile = &p
	res.Best, _ = s.eval(&p)
	res.Decodes = s.decodes
	res.Candidates = len(s.considered)
	res.Undecided = map[string]string{}
	for k, why := range s.why {
		if _, ok := res.Claimed(k); !ok {
			res.Undecided[k] = why
		}
	}
	sort.SliceStable(res.Keys, func(i, j int) bool { return keyOrder(res.Keys[i].Name) < keyOrder(res.Keys[j].Name) })
	return res
}

// descend moves from start one group at a time to the best-scoring
// candidate until a round changes nothing.
func (s *search) descend(cur unturned.Profile) unturned.Profile {
	for pass := 0; pass < maxPasses; pass++ {
		changed := false
		for _, g := range groups {
			if cs := s.rank(g.cands(s, &cur)); len(cs) > 0 && cs[0].s.Bad < mustScore(s, &cur).Bad {
				cur, changed = *cs[0].p, true
			}
		}
		if !changed {
			break
		}
	}
	return cur
}

func mustScore(s *search, p *unturned.Profile) Score {
	sc, ok := s.eval(p)
	if !ok {
		return Score{Bad: 1 << 30}
	}
	return sc
}

// rank scores the candidates, best first (stable: the first listed wins a
// tie, and each group lists the current value first).
func (s *search) rank(ps []*unturned.Profile) []cand {
	var cs []cand
	seen := map[unturned.Profile]bool{}
	for _, p := range ps {
		if seen[*p] {
			continue
		}
		seen[*p] = true
		s.considered[*p] = true
		if sc, ok := s.eval(p); ok {
			cs = append(cs, cand{p, sc})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].s.Bad < cs[j].s.Bad })
	return cs
}

// minMargin is the least score by which every other value of a key must
// lose for the key to be claimed.
const minMargin = wWarn

// claims returns the keys of g the ranked candidates decide: every
// best-scoring candidate agrees on the value, a candidate with another
// value scores worse by minMargin or more, and the capture shows the value.
func (s *search) claims(g group, cs []cand) []Key {
	if len(cs) < 2 {
		for _, key := range g.keys {
			s.why[key] = "no other value could be tried: the search reached its bound of decodes"
		}
		return nil
	}
	min := cs[0].s.Bad
	var keys []Key
	for _, key := range g.keys {
		v := get(cs[0].p, key)
		agree, worse := true, -1
		for _, c := range cs {
			if c.s.Bad == min && get(c.p, key) != v {
				agree = false
				break
			}
			if c.s.Bad > min && get(c.p, key) != v && worse < 0 {
				worse = c.s.Bad
			}
		}
		// A margin below one warning's weight is a few notes' worth: the
		// capture does not decide the key (a mid-stream capture's stray
		// notes must not pick a width).
		switch {
		case !agree:
			s.why[key] = "several values decode the capture equally well"
			continue
		case worse < 0:
			s.why[key] = "every value tried decodes the capture alike: no message depends on it"
			continue
		case worse-min < minMargin:
			s.why[key] = fmt.Sprintf("the best other value scores only %d worse (%d needed)", worse-min, minMargin)
			continue
		case g.seen != nil && !g.seen(s, cs[0].p, key):
			s.why[key] = "the capture shows no message that carries it"
			continue
		}
		margin := worse - min
		conf := 1 - 1/float64(2+margin)
		keys = append(keys, Key{Name: key, Value: v, Confidence: round2(conf),
			Text: fmt.Sprintf("decodes %d messages with score %d (%d flagged); the best other value scores %d", cs[0].s.Messages, min, cs[0].s.Flagged, worse)})
	}
	return keys
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

// gwfTail is the end of a vanilla GetWorkshopFiles (wire.md 3).
var gwfTail = []byte{0x0a, 0x00, 'H', 'e', 'l', 'l', 'o', '!'}

const gwfLen = 969

// sniff reads the constants the wire shows directly: the port of the
// connections whose first client message is a GetWorkshopFiles, and the
// magic of the client's marker (its first 32 bits, aligned after the
// vanilla body). cur takes them.
func (s *search) sniff(ix *session.Index, cur *unturned.Profile) []Key {
	if ix == nil {
		s.why["transport_port"] = "the search reached its bound of decodes"
		s.why["marker_magic"] = s.why["transport_port"]
		return nil
	}
	first := map[dissect.Conn]bool{}
	ports := map[uint16]int{}
	magics := map[uint32]int{}
	for n := 1; n <= ix.Len(); n++ {
		m := ix.Message(n)
		if m == nil || m.Dir != dissect.C2S || first[m.Conn] {
			continue
		}
		first[m.Conn] = true
		d := m.Data
		if len(d) < gwfLen || !bytes.Equal(d[gwfLen-len(gwfTail):gwfLen], gwfTail) || bytes.ContainsFunc(d[:gwfLen-len(gwfTail)], func(r rune) bool { return r != 0 }) {
			continue
		}
		ports[m.Conn.Server.Port()]++
		if t := d[gwfLen:]; len(t) == 8 {
			magics[binary.LittleEndian.Uint32(t)]++
		}
	}
	var keys []Key
	if len(ports) == 0 {
		s.why["transport_port"] = "no connection opens with a GetWorkshopFiles: the capture starts after the workshop handshake"
	}
	if len(magics) == 0 {
		s.why["marker_magic"] = "no GetWorkshopFiles carries a USMN marker: the capture starts after the handshake, or the client runs no USMN"
	}
	if port, n, total := most(ports); n > 0 {
		cur.TransportPort = port
		keys = append(keys, Key{Name: "transport_port", Value: int64(port), Confidence: round2(0.99 * float64(n) / float64(total)),
			Text: fmt.Sprintf("%d of %d connections opening with a GetWorkshopFiles are to this port", n, total)})
	}
	if magic, n, total := most(magics); n > 0 {
		cur.MarkerMagic = magic
		conf := 0.9
		if n == total && total > 1 {
			conf = 0.95
		}
		keys = append(keys, Key{Name: "marker_magic", Value: magic, Confidence: conf,
			Text: fmt.Sprintf("the first 32 bits of the 64-bit trailer after %d of %d GetWorkshopFiles", n, total)})
	}
	return keys
}

// most returns the most frequent key (the smallest on a tie), its count
// and the total.
func most[K uint16 | uint32](m map[K]int) (K, int, int) {
	var best K
	n, total := 0, 0
	for k, c := range m {
		total += c
		if c > n || c == n && k < best {
			best, n = k, c
		}
	}
	return best, n, total
}

// readBits reads n bits at bit off of b, or false past its end.
func readBits(b []byte, off, n int) (uint32, bool) {
	r := netpak.NewReader(b)
	r.Seek(off)
	v := r.Bits(n)
	return v, r.Err() == nil
}
