package session

import (
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/listeners"
	"github.com/usmnscope/usmnscope/unturned/pair"
)

// connection is the per-connection state machine: framing per direction,
// the decoding State per direction (wire.md 4.2 widening, 4.3 ID bit
// count), widened-enum inference when the handshake was not captured, and
// the listener-ID tables with their as-of checkpoints (wire.md 4.5).
type connection struct {
	idx uint32
	// key is info.Conn in an allocation of its own, never written after
	// newConnection: another goroutine may read it (Tally.Conn) without
	// sharing a cache line with the fields the feeder writes at every
	// message (issue 26: that line went back and forth between the cores).
	key    *dissect.Conn
	input  int32  // the capture of several it was first seen in (origins.go)
	ver    uint64 // Index.ver when info last changed (ConnectionsSince)
	info   ConnInfo
	framer [2]*unturned.Framer

	// hostedWaitNoted: the finding of an asker handed out early for the
	// ULinkRPC budget was given (Index.hostedBound).
	hostedWaitNoted bool

	started   [2]bool      // the direction's first message arrived
	fed       [2]bool      // the direction's framer has been given bytes
	lastTime  [2]time.Time // capture time of the direction's last chunk
	lastFrame [2]int       // its frame number: messages End recovers carry these
	// unsynced are the chunks fed while the direction's framer was
	// resynchronising, so that a message it yields late still carries the
	// time and frame of the chunk that held its last byte.
	unsynced  [2][]chunkMark
	blocking  [2]bool // the framer holds bytes awaiting resynchronisation (Index.blockers)
	undecided [2]bool // its enum width is being inferred
	heldIn    [2]int  // messages of an undecided direction held so far
	marker    [2]bool // the direction's detection message carried the USMN marker
	widened   [2]bool // later messages of the direction are read widened
	idBits    int     // Serverside_ID_Bit_Count in force (wire.md 4.3)
	idKnown   bool
	// The count's inference (idbits.go, wire.md 4.6): idUndecided holds the
	// connection's messages while it is tried; idInferred is a count no
	// marker or definition has confirmed yet.
	idUndecided, idInferred bool
	retent                  bool // held messages decoded again once the widening was decided
	idInf                   *unturned.IDBitsInference
	idIdx                   []int32 // the held messages idInf was given, in order

	// held are record indices waiting to be committed, in message order.
	// While any direction is undecided every message of the connection is
	// held, so that the tables see the messages in order.
	held []int32

	msgs      msgList // record indices of the connection's messages, ascending
	committed int     // how many of msgs are committed (always a prefix: commits go in order)
	// tables are the listener-ID tables with their checkpoints at points
	// of msgs; the operations after one are not kept but taken again from
	// their messages (Index.tablesAsOf).
	tables listeners.History

	// A hosted protocol's connection (hosted.go): its state, what else it
	// offers (decode.Tallied, Keeper, Reuser: nil for none, asked once at
	// OpenConn), and how many of its findings info has. light: its
	// records are light (decode.Config.Light, and it reuses them), read
	// only as far as the tables go; budget: it is decode.Budgeted;
	// compact: its records are kept compact (decode.Keeper.KeepCompact).
	proto                  decode.Conn
	tally                  decode.Tallied
	keeper                 decode.Keeper
	reuse                  decode.Reuser
	light, budget, compact bool
	hostedFindings         int

	// pairs is PingRequest and RequestServerListenerId pairing
	// (unturned/pair, pairs.go), made with the connection's first message
	// (connection.pairing): ten
	// thousand connections that never finish one would each hold 700
	// bytes of it (issue 29's partial shape).
	pairs *pair.State
}

// chunkMark is where a chunk ended in its direction's stream, and when and
// in which frame it was captured.
type chunkMark struct {
	end   int64
	time  time.Time
	frame int
	seq   uint64 // Index.seq of the event that brought it
}

// stamp returns the time, frame and event of the chunk holding stream
// offset end-1 among those fed while resynchronising, or t, frame and seq
// when none is recorded; marks before that chunk are dropped (messages come
// in order).
func (cn *connection) stamp(dir dissect.Dir, end int64, t time.Time, frame int, seq uint64) (time.Time, int, uint64) {
	m := cn.unsynced[dir]
	for len(m) > 0 && m[0].end < end {
		m = m[1:]
	}
	cn.unsynced[dir] = m
	if len(m) == 0 {
		return t, frame, seq
	}
	return m[0].time, m[0].frame, m[0].seq
}

func newConnection(idx uint32, conn dissect.Conn, rule Rule, lim *unturned.Limits) *connection {
	cn := &connection{idx: idx}
	cn.info.Conn, cn.info.Rule = conn, rule
	cn.key = &dissect.Conn{Client: conn.Client, Server: conn.Server}
	cn.framer[dissect.C2S] = unturned.NewFramer(lim.MaxMessage)
	cn.framer[dissect.S2C] = unturned.NewFramer(lim.MaxMessage)
	return cn
}

// pairing returns cn's pairing state, made on first use, with history
// for a full Index (the ping statistics as of a message).
func (cn *connection) pairing(history bool) *pair.State {
	if cn.pairs == nil {
		cn.pairs = pair.New(history)
	}
	return cn.pairs
}

// state is the State a message of dir is decoded in now.
func (cn *connection) state(dir dissect.Dir) unturned.State {
	return unturned.State{Widened: cn.widened[dir], IDBits: cn.idBits, IDKnown: cn.idKnown}
}

// holding reports whether new messages must wait for an inference.
func (cn *connection) holding() bool {
	return cn.undecided[dissect.C2S] || cn.undecided[dissect.S2C] || cn.idUndecided || len(cn.held) > 0
}

// learn updates the handshake state from a committed message (wire.md 4.2,
// 4.3): a marker in a detection message records that the side runs USMN;
// once both markers are seen both directions are widened from their next
// message on (the detection messages themselves are always vanilla width).
// The server's marker and every S→C definition set the ID bit count in
// force.
func (cn *connection) learn(dir dissect.Dir, d *unturned.Decoded) {
	detection := (dir == dissect.C2S && d.Kind == unturned.KindGetWorkshopFiles) || (dir == dissect.S2C && d.Kind == unturned.KindDownloadWorkshopFiles)
	if detection && d.HasMarker {
		cn.marker[dir] = true
		if dir == dissect.S2C {
			cn.info.USMNServer = true
			if d.Marker.HasIDBits {
				cn.idBits, cn.idKnown = d.Marker.IDBits, true
			}
		} else {
			cn.info.USMNClient = true
		}
		if cn.marker[dissect.C2S] && cn.marker[dissect.S2C] {
			for _, x := range [...]dissect.Dir{dissect.C2S, dissect.S2C} {
				if !cn.undecided[x] {
					cn.widened[x] = true
					cn.info.Widened[x] = true
				}
			}
		}
	}
	if dir == dissect.S2C && d.Kind == unturned.KindInvokeMessageListener && d.Invoke.HasDefinition && d.Clean() {
		cn.idBits, cn.idKnown = d.Invoke.IDBits, true
	}
}
