package pair

import (
	"cmp"
	"slices"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
	"github.com/usmnscope/usmnscope/unturned"
)

// Hold bounds pairing: an answer pairs only with an asker at most Hold
// messages (capture-wide numbers) before it. An asker older than that is
// left unanswered, so that a host that hands messages out in order holds
// an asker, and the messages after it, for at most Hold messages, and a
// flood of questions that are never answered costs a bounded queue.
const Hold = 4096

// State is one connection's pairing: the unanswered askers, the negotiate
// pairs a host keeps here (Link) and the ping statistics. Its zero value
// keeps no history (statistics of the end only); New makes one.
type State struct {
	// pings are the PingRequests of each direction, apart: a direction's
	// key is always the one used last (dissect.Pairs: no map operation).
	pings [2]dissect.Pairs[dissect.Dir]
	reqs  dissect.Pairs[uint32] // RequestServerListenerIds by Clientside_Listener_ID
	// order lists the askers in number order from head on: the oldest
	// leaves when it is answered, and every one once Hold expires it
	// (forgotten then if still unanswered), in constant time; one answered
	// out of order stays in it until then.
	order []askRef
	head  int
	// links are the pairs of the negotiate messages, by record index in
	// increasing order: their records' listener fields are taken (a ping's
	// record keeps its pair). A sorted slice, not a map: a full index keeps
	// every one, and a map took 60 bytes a link (issue 18: the TUI's 64
	// bytes a message).
	links   []Link
	ping    [2]pingCount // by the PingRequests' direction
	history bool         // keep the numbers of the pings (PingStats as of a message)
	ended   bool         // End: no answer can come any more
	// quietTo: the askers up to this number were given up when the input
	// went quiet (GiveUp): none can be answered any more.
	quietTo int32
}

// New returns an empty State; with history it keeps the numbers of its
// pings, for their statistics as of a message (a host that keeps every
// message), else only those of the end.
func New(history bool) *State { return &State{history: history} }

// askRef is an asker in State.order: its number and its key.
type askRef struct {
	n    int32
	ping bool
	key  uint32 // the Dir of a PingRequest, the Clientside_Listener_ID of a request
}

// Link is one side of a negotiate pair, by the messages' record indices
// (numbers − 1).
type Link struct {
	Idx     int32 // record index of the message
	Partner int32 // record index of its partner
	Answer  bool
	Latency time.Duration
}

// Role is what a message is to the pairing.
type Role uint8

const (
	None   Role = iota // pairs with nothing
	Asker              // a PingRequest or RequestServerListenerId, unanswered yet
	Answer             // the answer of an asker still unanswered
)

var roleNames = [...]string{None: "none", Asker: "asker", Answer: "answer"}

// String names the role; Unknown(r) for a value not listed.
func (r Role) String() string {
	return enum.Name(roleNames[:], r)
}

// Step is what Message made of a message: its Role and, for an Answer,
// its asker's number and the latency; Ping says a ping pair (a host keeps
// its pair in the records, a negotiate pair with SetLink).
type Step struct {
	Role    Role
	Ping    bool
	Asker   int32
	Latency time.Duration
}

func pingRequest(k unturned.Kind) bool {
	return k == unturned.KindServerPingRequest || k == unturned.KindClientPingRequest
}

func pingResponse(k unturned.Kind) bool {
	return k == unturned.KindServerPingResponse || k == unturned.KindClientPingResponse
}

// Message applies message n (numbered from 1, capture-wide), decoded as d
// in direction dir, to the pairing, and says what it is to it; at gives
// its capture time (UnixNano), asked only of a message that pairs. A negotiate message that did not decode cleanly pairs with
// nothing: its Clientside_Listener_ID may be garbage (as the listener
// tables do not take it).
func (s *State) Message(n int32, dir dissect.Dir, d *unturned.Decoded, at func() int64) Step {
	s.expire(n)
	switch {
	case pingRequest(d.Kind):
		s.ask(askRef{n: n, ping: true, key: uint32(dir)}, at())
		pc := &s.ping[dir]
		pc.requests++
		if s.history {
			pc.reqN.add(n)
		}
		return Step{Role: Asker, Ping: true}
	case pingResponse(d.Kind):
		asked := 1 - dir
		a, ok := s.answer(true, uint32(asked), int(n))
		if !ok {
			return Step{}
		}
		lat := time.Duration(at() - a.Time.UnixNano())
		pc := &s.ping[asked]
		if s.history {
			pc.rtt.add(lat)
			pc.ansN.add(n)
		} else {
			pc.rttc.add(lat)
			pc.rttr.Add(lat)
		}
		return Step{Role: Answer, Ping: true, Asker: int32(a.N), Latency: lat}
	case d.Kind == unturned.KindNegotiateListenerDetails && d.Clean():
		ng := &d.Negotiate
		switch {
		case dir == dissect.C2S && ng.Mode == unturned.RequestServerListenerID:
			s.ask(askRef{n: n, key: ng.ClientID}, at())
			return Step{Role: Asker}
		case dir == dissect.S2C && (ng.Mode == unturned.TellClientListenerID || ng.Mode == unturned.TellClientMissingListener):
			if a, ok := s.answer(false, ng.ClientID, int(n)); ok {
				return Step{Role: Answer, Asker: int32(a.N), Latency: time.Duration(at() - a.Time.UnixNano())}
			}
		}
	}
	return Step{}
}

// ask records asker a, at at.
func (s *State) ask(a askRef, at int64) {
	t := time.Unix(0, at)
	if a.ping {
		s.pings[a.key].Ask(dissect.Dir(a.key), dissect.Ask{N: int(a.n), Time: t})
	} else {
		s.reqs.Ask(a.key, dissect.Ask{N: int(a.n), Time: t})
	}
	s.order = append(s.order, a)
}

// answer takes the oldest unanswered asker of key that message n may
// answer: askers more than Hold messages older are forgotten. The asker at
// the head of order, the usual one, leaves it at once.
func (s *State) answer(ping bool, key uint32, n int) (dissect.Ask, bool) {
	for {
		var a dissect.Ask
		var ok bool
		if ping {
			a, ok = s.pings[key].Oldest(dissect.Dir(key))
		} else {
			a, ok = s.reqs.Oldest(key)
		}
		if !ok {
			return a, false
		}
		if n-a.N <= Hold {
			if s.head < len(s.order) && int(s.order[s.head].n) == a.N {
				s.head++
				s.compact()
			}
			return a, true
		}
	}
}

// open reports whether asker a is still unanswered.
func (s *State) open(a askRef) bool {
	var o dissect.Ask
	var ok bool
	if a.ping {
		o, ok = s.pings[a.key].Peek(dissect.Dir(a.key))
	} else {
		o, ok = s.reqs.Peek(a.key)
	}
	return ok && o.N == int(a.n)
}

// forget drops the askers at the head of order numbered before before,
// each still unanswered taken out of its queue (those answered meanwhile
// just leave order).
func (s *State) forget(before int32) {
	for s.head < len(s.order) {
		a := s.order[s.head]
		if a.n >= before {
			break
		}
		if s.open(a) {
			if a.ping {
				s.pings[a.key].Oldest(dissect.Dir(a.key))
			} else {
				s.reqs.Oldest(a.key)
			}
		}
		s.head++
	}
	s.compact()
}

// expire forgets the askers that message n, being applied, and the
// connection's later messages can no longer answer: more than Hold before
// it.
func (s *State) expire(n int32) { s.forget(n - Hold) }

// GiveUp forgets every unanswered asker, as expire does past Hold: none
// can be answered any more (the input went quiet), so a host holds none
// (Final). Nil: no asker.
func (s *State) GiveUp() {
	if s == nil || s.head == len(s.order) {
		return
	}
	s.quietTo = max(s.quietTo, s.order[len(s.order)-1].n)
	s.forget(s.quietTo + 1)
}

// compact empties order once it is all behind head, and moves what is
// left to its start once most of it is.
func (s *State) compact() {
	if s.head == len(s.order) {
		s.order, s.head = s.order[:0], 0
	} else if s.head >= 64 && 2*s.head >= len(s.order) {
		k := copy(s.order, s.order[s.head:])
		s.order, s.head = s.order[:k], 0
	}
}

// End says the capture ended: no asker can be answered any more. Nil: no
// asker.
func (s *State) End() {
	if s != nil {
		s.ended = true
	}
}

// Final reports whether no message can answer asker n any more: the
// capture ended, the input went quiet, or every message that may (numbered
// at most Hold after it) has been applied and none did: last is the
// capture's latest number, and all says every message of the connection
// so far was applied. Nil: no asker.
func (s *State) Final(n int32, last int, all bool) bool {
	return s == nil || s.ended || n <= s.quietTo || last-int(n) >= Hold && all
}

// OldestOpen is the number of the oldest unanswered asker, 0 for none.
func (s *State) OldestOpen() int32 {
	if s == nil {
		return 0
	}
	for _, a := range s.order[s.head:] {
		if s.open(a) {
			return a.n
		}
	}
	return 0
}

// Open counts the askers unanswered.
func (s *State) Open() int {
	if s == nil {
		return 0
	}
	return s.pings[0].Len() + s.pings[1].Len() + s.reqs.Len()
}

// linkAt returns the position in links of record idx's link, or where it
// goes.
func (s *State) linkAt(idx int32) (int, bool) {
	return slices.BinarySearchFunc(s.links, idx, func(l Link, idx int32) int { return cmp.Compare(l.Idx, idx) })
}

// Link keeps the negotiate pair of asker and answer (record indices),
// which measured latency, on both sides, or on the answer's only when
// the host keeps nothing of the asker any more (askerKept false). A
// connection's messages are applied in order, so the answer's goes at the
// end and the asker's a little before it.
func (s *State) Link(asker, answer int32, latency time.Duration, askerKept bool) {
	if askerKept {
		s.setLink(Link{Idx: asker, Partner: answer})
	}
	s.setLink(Link{Idx: answer, Partner: asker, Answer: true, Latency: latency})
}

// setLink keeps l, replacing the link of its Idx.
func (s *State) setLink(l Link) {
	k, found := s.linkAt(l.Idx)
	if found {
		s.links[k] = l
		return
	}
	s.links = slices.Insert(s.links, k, l)
}

// LinkOf returns record idx's link. Nil: none.
func (s *State) LinkOf(idx int32) (Link, bool) {
	if s == nil {
		return Link{}, false
	}
	if k, ok := s.linkAt(idx); ok {
		return s.links[k], true
	}
	return Link{}, false
}

// Unlink forgets record idx's link. Nil: none.
func (s *State) Unlink(idx int32) {
	if s == nil {
		return
	}
	if k, ok := s.linkAt(idx); ok {
		s.links = slices.Delete(s.links, k, k+1)
	}
}
