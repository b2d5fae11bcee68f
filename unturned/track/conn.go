package track

import (
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/listeners"
	"github.com/usmnscope/usmnscope/unturned/pair"
)

// Host is what a Conn asks of the host that numbers and keeps its
// messages. A message is named by its record index i (its number less
// one).
type Host interface {
	// Message hands the host a framed message to number (f and its bytes
	// are valid during the call; Start is false after a
	// resynchronisation). It is the one call a message costs on the
	// feeding path, so it takes one pointer.
	Message(f *decode.FramedMsg)
	// Finding is a connection finding.
	Finding(f dissect.Finding)
	// Bytes are message i's bytes as the host keeps them, valid until the
	// next call.
	Bytes(i int32) []byte
	// Decode decodes message i of direction d in st, from msg (nil: the
	// bytes the host keeps), and keeps in its record what the decoding
	// showed: final, the decoding it is committed with (the one a stream
	// hands out); else a tentative one of a message held for an inference.
	Decode(i int32, d dissect.Dir, st unturned.State, msg []byte, final bool) *unturned.Decoded
	// Undecided marks message i as reading a server ID in a
	// Serverside_ID_Bit_Count not decided yet.
	Undecided(i int32)
	// Extra adds findings to message i (the tables', the inferences').
	Extra(i int32, fs ...dissect.Finding)
	// Listener says that message i, a USMN message whose table
	// operation o was applied (resolved: its listener was found), names
	// a listener: the host keeps what Conn.Name says of it (not called
	// for a host that said it does not, Capture.SetNames).
	Listener(i int32, o *listeners.Op, d *unturned.Decoded, resolved bool)
	// Asked marks message i as an asker of a pair; Link pairs asker a
	// with answer i, which measured lat.
	Asked(i int32)
	Link(a, i int32, lat time.Duration)
	// Time is message i's capture time (UnixNano).
	Time(i int32) int64
	// Committed says message i is committed: applied to the tables, the
	// pairing and the handshake.
	Committed(i int32)
	// Summary says the connection's summary changed.
	Summary(s *Summary)
}

// Summary is what the handshake says of a connection (outputs.md "usmn"):
// the markers seen, which directions read their enums widened and from
// which message, and whether the widening was inferred.
type Summary struct {
	Client, Server bool    // the client's, the server's marker seen
	Widened        [2]bool // per Dir
	WidenedAt      [2]int  // the message from which the direction is widened, 0 if never
	Inferred       bool    // the widening was inferred, not seen in a handshake
}

// Conn is one Unturned connection's state: its framing, handshake,
// inferences, listener tables and pairing (the package comment).
type Conn struct {
	// The fields every chunk and every message read or write come first,
	// on as few cache lines as they fit in: with many connections a line
	// of each is fetched per chunk.
	k      *Capture
	host   Host
	framer [2]*unturned.Framer
	// out is the message being handed to the host (Host.Message), reused:
	// one a message would escape to the heap through the interface.
	out       decode.FramedMsg
	fed       [2]bool // the direction's framer has been given bytes
	started   [2]bool // the direction's first message arrived
	undecided [2]bool // its enum width is being inferred
	widened   [2]bool // later messages of the direction are read widened
	marker    [2]bool // the direction's detection message carried the USMN marker
	idKnown   bool
	// The count's inference (infer.go, wire.md 4.6): idUndecided holds the
	// connection's messages while it is tried; idInferred is a count no
	// marker or definition has confirmed yet.
	idUndecided, idInferred bool
	retent                  bool // held messages decoded again once the widening was decided
	idBits                  int  // Serverside_ID_Bit_Count in force (wire.md 4.3)
	committed               int  // messages committed
	// held are the messages waiting to be committed, in message order,
	// and their directions. While any direction is undecided every
	// message of the connection is held, so that the tables see the
	// messages in order.
	held []int32
	// tables are the listener-ID tables with their checkpoints at points
	// of the connection's messages (unturned/listeners).
	tables listeners.History
	// pairs is PingRequest and RequestServerListenerId pairing
	// (unturned/pair), made with the connection's first commit: ten
	// thousand connections that never finish a message would each hold
	// 700 bytes of it (issue 29's partial shape).
	pairs     *pair.State
	sum       Summary
	lastTime  [2]time.Time // capture time of the direction's last chunk
	lastFrame [2]int       // its frame number: messages End recovers carry these
	lastSeq   [2]uint64    // and its event
	// unsynced are the chunks fed while the direction's framer was
	// resynchronising, so that a message it yields late still carries the
	// time and frame of the chunk that held its last byte.
	unsynced [2][]chunkMark

	heldDir []dissect.Dir
	heldIn  [2]int // messages of an undecided direction held so far
	idInf   *unturned.IDBitsInference
	idIdx   []int32 // the held messages idInf was given, in order
}

var _ decode.Feed = (*Conn)(nil)

// State is the State a message of dir is decoded in now.
func (c *Conn) State(dir dissect.Dir) unturned.State {
	return unturned.State{Widened: c.widened[dir], IDBits: c.idBits, IDKnown: c.idKnown}
}

// Pending reports whether new messages must wait for an inference.
func (c *Conn) Pending() bool {
	return c.undecided != [2]bool{} || c.idUndecided || len(c.held) > 0
}

// Arrive is called as the host is about to number f (as Host.Message gave
// it): a direction's first message says whether its handshake was
// captured. The host then asks Pending whether the message will wait for
// an inference. It inlines: it is every message's path.
func (c *Conn) Arrive(f *decode.FramedMsg) {
	if c.started != [2]bool{true, true} {
		c.first(f)
	}
}

// first notes a direction's first message f: the handshake is captured
// when it is the direction's detection message at the start of the stream
// (wire.md 4.1); anything else means we joined mid-connection and must
// infer.
func (c *Conn) first(f *decode.FramedMsg) {
	d := f.Dir
	if c.started[d] {
		return
	}
	c.started[d] = true
	p := c.k.profile
	r := netpak.NewReader(f.Msg)
	v := r.Bits(p.EnumBits(d))
	if !f.Start || r.Err() != nil || v != p.DetectionMessage(d) {
		c.undecided[d] = true
		// Joined after the server's marker: the ID bit count in force
		// is not known either (wire.md 4.6).
		c.idUndecided = c.idUndecided || !c.idKnown && !c.marker[dissect.S2C]
	}
}

// Numbered takes f, just numbered as message i, and commits it now or
// holds it for an inference.
func (c *Conn) Numbered(i int32, f *decode.FramedMsg) {
	d, msg := f.Dir, f.Msg
	if !c.Pending() {
		c.commit(i, d, msg)
		return
	}
	c.held = append(c.held, i)
	c.heldDir = append(c.heldDir, d)
	c.tentative(i, d, msg)
	window := c.k.limits.InferWindow
	if c.undecided[d] {
		c.heldIn[d]++
		if c.heldIn[d] >= window {
			c.decide(d)
		}
	}
	// A decided direction that keeps talking while the other stays
	// undecided must not be held without bound.
	if len(c.held) >= 4*window {
		for _, x := range [...]dissect.Dir{dissect.C2S, dissect.S2C} {
			if c.undecided[x] {
				c.decide(x)
			}
		}
	}
	if !c.undecided[dissect.C2S] && !c.undecided[dissect.S2C] {
		if !c.widened[dissect.C2S] && !c.widened[dissect.S2C] {
			// Neither side widens: USMN's messages cannot occur (wire.md
			// 4.2), so nothing depends on the count.
			c.idUndecided = false
		}
		if c.idUndecided {
			c.inferIDBits(len(c.held) >= 4*window)
			if c.idUndecided && len(c.held) > 0 && c.held[len(c.held)-1] == i {
				c.retentative()
			}
		}
		c.commitHeld()
	}
}

// commit decodes message i of dir (from msg, or from the bytes the host
// keeps when msg is nil) in the connection's state, applies it (Commit),
// and tells the host.
func (c *Conn) commit(i int32, dir dissect.Dir, msg []byte) {
	st := c.State(dir)
	c.Commit(i, dir, st, c.host.Decode(i, dir, st, msg, true))
	c.host.Committed(i)
}

// Commit applies message i of dir, decoded final in st (State(dir)), to
// the handshake state, the tables and the pairing. It is what Numbered
// does with a message that does not wait (Arrive false) less the host's
// two calls around it, Host.Decode and Host.Committed, for a host that
// makes those itself on its own type: they are every message's path.
func (c *Conn) Commit(i int32, dir dissect.Dir, st unturned.State, d *unturned.Decoded) {
	n := int(i) + 1
	h := c.host
	pos := c.committed
	c.committed++
	if d.Enum.Widened && c.sum.WidenedAt[dir] == 0 {
		c.sum.WidenedAt[dir] = n
		h.Summary(&c.sum)
	}
	undecided := c.idPending(dir, d)
	if undecided {
		h.Undecided(i)
	}
	c.overrides(i, dir, d)
	if d.Kind == unturned.KindInvokeMessageListener || d.Kind == unturned.KindNegotiateListenerDetails {
		// The capture's one Op (Host.Listener is given it: one of the
		// commit's own would be allocated for every USMN message).
		o := &c.k.op
		listeners.OpFor(o, dir, n, st, d, c.k.intern)
		if undecided {
			// Its server ID is not known: the tables do not take it.
			*o = listeners.Op{Dir: dir, N: n, IDBits: uint8(st.IDBits)}
		}
		var res listeners.Result
		if c.k.history {
			c.tables.ApplyAt(o, c.k.limits, pos, &res)
		} else {
			// No checkpoints: a host without history keeps none.
			c.tables.Apply(o, c.k.limits, &res)
		}
		if c.k.names {
			h.Listener(i, o, d, res.Resolved)
		}
		if len(res.Findings) > 0 {
			h.Extra(i, res.Findings...)
		}
	}
	switch step := c.pairing().Message(i+1, dir, d, func() int64 { return h.Time(i) }); step.Role {
	case pair.Asker:
		h.Asked(i)
	case pair.Answer:
		h.Link(step.Asker, i, step.Latency)
	}
	c.learn(dir, d)
}

// Name is what the tables know now of the listener a USMN message names,
// whose operation o was just applied (listeners.State.Name).
func (c *Conn) Name(o *listeners.Op, d *unturned.Decoded, nm *listeners.Named) {
	c.tables.Current().Name(o, d, nm)
}

// pairing returns the pairing state, made on first use, with history for
// a host that keeps every message (the ping statistics as of a message).
func (c *Conn) pairing() *pair.State {
	if c.pairs == nil {
		c.pairs = pair.New(c.k.history)
	}
	return c.pairs
}

// learn updates the handshake state from a committed message (wire.md 4.2,
// 4.3): a marker in a detection message records that the side runs USMN;
// once both markers are seen both directions are widened from their next
// message on (the detection messages themselves are always vanilla width).
// The server's marker and every S→C definition set the ID bit count in
// force.
func (c *Conn) learn(dir dissect.Dir, d *unturned.Decoded) {
	detection := (dir == dissect.C2S && d.Kind == unturned.KindGetWorkshopFiles) || (dir == dissect.S2C && d.Kind == unturned.KindDownloadWorkshopFiles)
	if detection && d.HasMarker {
		c.marker[dir] = true
		if dir == dissect.S2C {
			c.sum.Server = true
			if d.Marker.HasIDBits {
				c.idBits, c.idKnown = d.Marker.IDBits, true
			}
		} else {
			c.sum.Client = true
		}
		if c.marker[dissect.C2S] && c.marker[dissect.S2C] {
			for _, x := range [...]dissect.Dir{dissect.C2S, dissect.S2C} {
				if !c.undecided[x] {
					c.widened[x] = true
					c.sum.Widened[x] = true
				}
			}
		}
		c.host.Summary(&c.sum)
	}
	if dir == dissect.S2C && d.Kind == unturned.KindInvokeMessageListener && d.Invoke.HasDefinition && d.Clean() {
		c.idBits, c.idKnown = d.Invoke.IDBits, true
	}
}

// Settle decides a pending inference and commits what it held (the
// connection ended, or the capture did).
func (c *Conn) Settle() {
	for _, d := range [...]dissect.Dir{dissect.C2S, dissect.S2C} {
		if c.undecided[d] {
			c.decide(d)
		}
	}
	if c.idUndecided {
		c.inferIDBits(true)
	}
	c.commitHeld()
}

// Quiet says the input went quiet (session.Index.Quiet): an inference
// still pending is decided on the messages it has, and the askers still
// unanswered are given up (pair.State.GiveUp).
func (c *Conn) Quiet() {
	if c.Pending() {
		c.Settle()
	}
	c.pairs.GiveUp()
}

// Finish says the capture ended: no asker can be answered any more.
func (c *Conn) Finish() { c.pairs.End() }

// Held are the messages held for an inference, in order (the host's to
// read, not to change).
func (c *Conn) Held() []int32 { return c.held }

// FirstUnresolved is the number of the oldest reference the tables still
// wait to resolve (listeners.State.FirstUnresolved).
func (c *Conn) FirstUnresolved() (int, bool) { return c.tables.Current().FirstUnresolved() }

// Tables are the listener tables with their checkpoints.
func (c *Conn) Tables() *listeners.History { return &c.tables }

// Pairs is the pairing state, nil before the first commit.
func (c *Conn) Pairs() *pair.State { return c.pairs }

// The pairing as the host keeps it in its records (pair.State): Link
// keeps a negotiate pair, LinkOf gives record i's, Unlink forgets it,
// OldestOpen is the oldest unanswered asker (0 for none), and PairFinal
// reports whether no message can answer asker n any more (pair.State.Final:
// last is the latest number, all says every message of the connection so
// far was committed).

func (c *Conn) Link(asker, answer int32, lat time.Duration, askerKept bool) {
	c.pairs.Link(asker, answer, lat, askerKept)
}

func (c *Conn) LinkOf(i int32) (partner int32, lat time.Duration, answer, ok bool) {
	l, ok := c.pairs.LinkOf(i)
	return l.Partner, l.Latency, l.Answer, ok
}

func (c *Conn) Unlink(i int32)                             { c.pairs.Unlink(i) }
func (c *Conn) OldestOpen() int32                          { return c.pairs.OldestOpen() }
func (c *Conn) PairFinal(n int32, last int, all bool) bool { return c.pairs.Final(n, last, all) }

// ListenerOf is the listener type and version of an invoke: as its record
// knew it, or else, for a reference unresolved when it was decoded, as the
// tables know its ID now that replay may have resolved it (wire.md 4.5):
// the payload is decoded when the message is shown.
func (c *Conn) ListenerOf(l *unturned.Listener) (string, uint32, bool) {
	if l == nil {
		return "", 0, false
	}
	if l.Type != nil && l.Version != nil {
		return *l.Type, *l.Version, true
	}
	if c == nil {
		return "", 0, false
	}
	t := c.tables.Current()
	if l.ServerID != nil {
		if e, ok := t.Server(*l.ServerID); ok {
			return e.Type, e.Version, true
		}
	}
	if l.ClientID != nil {
		if e, ok := t.Client(*l.ClientID); ok {
			return e.Type, e.Version, true
		}
	}
	return "", 0, false
}
