package infer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/unturned"
)

// Decoder decodes the capture under a profile and returns it decoded (the
// host's finished index). Run calls it twice: under the starting profile (whose decode
// gives the sample the search reads) and under the inferred one.
type Decoder func(p *unturned.Profile) Decoded

// Key is one claimed profile key with its evidence (outputs.md "profile
// infer").
type Key struct {
	Name       string  // the TOML key of wire.md 6.1
	Value      any     // string, int64 or uint32 as the TOML value
	Confidence float64 // in (0, 1]
	Text       string  // the evidence
}

// Undecided is a searched key the capture does not decide, and why.
type Undecided struct {
	Name   string
	Reason string
}

// Result is what Run found.
type Result struct {
	Profile   *unturned.Profile // the starting profile with every claimed key set
	Keys      []Key             // the claimed keys, in wire.md 6 order
	Undecided []Undecided       // the searched keys not claimed, in wire.md 6 order
	Active    Score             // the starting profile's decode
	Best      Score             // the inferred profile's decode
	// Decodes counts the captures decoded whole (the starting profile's
	// and the inferred one's); Candidates the candidate profiles the
	// search read its sample under, and Messages the messages it decoded
	// doing so; Elapsed is the search's time.
	Decodes    int
	Candidates int
	Messages   int
	Sample     int // messages in the sample
	Elapsed    time.Duration
	// Survivors are (up to 32 of) the candidate profiles that read the
	// sample best: an undecided key has several values among them, or a
	// filler.
	Survivors []unturned.Profile
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

// Why returns the reason a searched key was left undecided, if it was.
func (r *Result) Why(name string) (string, bool) {
	for _, u := range r.Undecided {
		if u.Name == name {
			return u.Reason, true
		}
	}
	return "", false
}

// maxCandidates bounds the candidate profiles of one run whatever the
// capture holds (a run from the handshake needs a few hundred; one whose
// start was not captured a few thousand).
const maxCandidates = 10000

// Run searches the profile that best explains the capture dec decodes,
// starting from base (the active profile).
func Run(base *unturned.Profile, dec Decoder) *Result { return RunBounded(base, dec, maxCandidates) }

// RunBounded is Run trying at most maxCandidates candidate profiles on its
// sample: past the bound the keys of the stage it stopped in and of the
// later stages are left undecided, so a run costs two decodes of the
// capture and at most that many readings of the sample.
func RunBounded(base *unturned.Profile, dec Decoder, maxCands int) *Result {
	return RunBudget(base, dec, maxCands, -1)
}

// RunBudget is RunBounded that also decodes at most maxDecodes messages in
// all (maxDecodes < 0: no such bound): the two decodes of the capture
// count each of their messages, the search each message it reads under a
// candidate. A candidate whose reading would pass the bound is not
// scored; the search stops there as at its candidate bound (the keys of
// that stage and of the later ones undecided): Messages never exceeds
// maxDecodes less two decodes of the sample's messages, and the profile
// found is decoded only within the bound (none is searched when the
// first decode alone passes it). It is what bounds the profile hint's
// time in a dump or a load by the work it is allowed (issue 29), not by a
// clock.
func RunBudget(base *unturned.Profile, dec Decoder, maxCands, maxDecodes int) *Result {
	t0 := time.Now()
	res := &Result{}
	cur := *base
	ix := dec(&cur)
	res.Decodes++
	res.Active = score(ix)
	smp := sampleOf(ix)
	res.Sample = smp.n
	wire, why := sniff(ix, &cur)
	ix = nil // the sample holds what the search reads
	res.Keys = append(res.Keys, wire...)
	res.Undecided = append(res.Undecided, why...)

	s := &search{ev: &evaluator{s: smp, limit: -1}, max: maxCands, cut: -1, keys: map[string]int{}}
	if maxDecodes >= 0 {
		// The decode of the capture done, and the one of the profile
		// found, each read the sample's messages once.
		s.ev.limit = max(0, maxDecodes-2*res.Active.Messages)
		s.decodeBound = maxDecodes
	}
	final := s.searchAll(cur)
	keys, und := s.claims(final, smp)
	for _, c := range final[:min(32, len(final))] {
		res.Survivors = append(res.Survivors, c.p)
	}
	res.Keys = append(res.Keys, keys...)
	res.Undecided = append(res.Undecided, und...)
	for _, k := range []string{"client_methods", "server_methods"} {
		res.Undecided = append(res.Undecided, Undecided{k, "an InvokeMethod's index is followed by method-specific parameters no profile describes, so no width reads worse than another (wire.md 3): method counts are undecidable"})
	}

	p := *base
	for _, k := range res.Keys {
		set(&p, k.Name, k.Value)
	}
	if p.Validate() != nil {
		// A claimed value with an unclaimed default can clash (two equal
		// modes): the unclaimed keys take the first survivor's values.
		if len(final) > 0 {
			q := final[0].p
			for _, k := range res.Keys {
				set(&q, k.Name, k.Value)
			}
			q.Name, q.Bounds, q.ULinkRPC, q.DecodeAs = base.Name, base.Bounds, base.ULinkRPC, base.DecodeAs
			q.ClientMethods, q.ServerMethods, q.QueryPort = base.ClientMethods, base.ServerMethods, base.QueryPort
			p = q
		}
		if p.Validate() != nil {
			p = *base
		}
	}
	res.Profile = &p
	if s.ev.limit >= 0 && s.ev.decodes+res.Active.Messages > maxDecodes {
		p = *base // no budget left to check the profile found
		res.Profile = &p
	}
	if p == *base {
		res.Best = res.Active
	} else {
		res.Best = score(dec(&p))
		res.Decodes++
	}
	res.Candidates, res.Messages = s.n, s.ev.decodes
	sort.SliceStable(res.Keys, func(i, j int) bool { return keyOrder(res.Keys[i].Name) < keyOrder(res.Keys[j].Name) })
	sort.SliceStable(res.Undecided, func(i, j int) bool { return keyOrder(res.Undecided[i].Name) < keyOrder(res.Undecided[j].Name) })
	res.Elapsed = time.Since(t0)
	return res
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

// gwfTail is the end of a vanilla GetWorkshopFiles (wire.md 3).
var gwfTail = []byte{0x0a, 0x00, 'H', 'e', 'l', 'l', 'o', '!'}

const gwfLen = 969

// sniff reads the constants the wire shows directly: the port of the
// connections whose first client message is a GetWorkshopFiles, and the
// magic of the client's marker (its first 32 bits, aligned after the
// vanilla body). cur takes them.
func sniff(ix Decoded, cur *unturned.Profile) ([]Key, []Undecided) {
	first := map[dissect.Conn]bool{}
	ports := map[uint16]int{}
	magics := map[uint32]int{}
	gwfs := 0
	for n := 1; ix != nil && n <= ix.Len(); n++ {
		h, ok := ix.Head(n)
		if !ok || h.Other || h.Dir != dissect.C2S || first[h.Conn] {
			continue
		}
		first[h.Conn] = true
		m, ok := ix.Message(n)
		if !ok {
			continue
		}
		d := m.Data
		if len(d) < gwfLen || !bytes.Equal(d[gwfLen-len(gwfTail):gwfLen], gwfTail) || bytes.ContainsFunc(d[:gwfLen-len(gwfTail)], func(r rune) bool { return r != 0 }) {
			continue
		}
		gwfs++
		ports[m.Conn.Server.Port()]++
		if t := d[gwfLen:]; len(t) == 8 {
			magics[binary.LittleEndian.Uint32(t)]++
		}
	}
	var keys []Key
	var und []Undecided
	if gwfs == 0 {
		why := "no connection's first client message is a GetWorkshopFiles: the capture starts after the workshop handshake"
		und = append(und, Undecided{"transport_port", why}, Undecided{"marker_magic", why})
		return keys, und
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
	} else {
		und = append(und, Undecided{"marker_magic", fmt.Sprintf("none of the %d GetWorkshopFiles carries a marker: the clients do not run USMN", gwfs)})
	}
	return keys, und
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
