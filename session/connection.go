package session

import (
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
)

// connection is what the host keeps of one connection: its summary, its
// messages (record indices), whether it blocks numbering (order.go), and
// its protocol's state: a hosted protocol's decode.Conn (hosted.go), or
// the state of a connection the host decodes natively (nativeConn).
type connection struct {
	idx uint32
	// key is info.Conn in an allocation of its own, never written after
	// newConnection: another goroutine may read it (Tally.Conn) without
	// sharing a cache line with the fields the feeder writes at every
	// message (issue 26: that line went back and forth between the cores).
	key   *dissect.Conn
	input int32  // the capture of several it was first seen in (origins.go)
	ver   uint64 // Index.ver when info last changed (ConnectionsSince)
	info  ConnInfo

	// hostedWaitNoted: the finding of an asker handed out early for the
	// ULinkRPC budget was given (Index.hostedBound).
	hostedWaitNoted bool

	// feed is the protocol's state as the host feeds it: proto, or
	// native. blocking: it holds bytes that may end messages earlier than
	// later arrivals (Index.blockers).
	feed     decode.Feed
	blocking bool
	// lastFrame is the frame of a hosted connection's latest event: the
	// end of the capture ends it there (hostedEnd).
	lastFrame int

	// native is the state of a connection the host decodes natively
	// (Unturned's this round: unturned.go), nil for a hosted one; number
	// numbers one of its framed messages that waited in the queue
	// (order.go), as its protocol's side of the host numbers one that
	// did not.
	native nativeConn
	number func(f *decode.FramedMsg)
	// un is native on its own type (unturned.go), which every chunk's and
	// message's path calls directly; nil for a hosted connection.
	un *unturnedHost

	msgs      msgList // record indices of the connection's messages, ascending
	committed int     // how many of msgs are committed (always a prefix: commits go in order)

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
}

// nativeConn is the state of a connection whose messages the host numbers
// and keeps as its own records (Unturned's this round: unturned/track,
// made in unturned.go; issue 23's next step makes it a hosted protocol).
// The host feeds it (decode.Feed; Idle is Abandon when the source went
// idle, MidStream says the connection was joined mid-stream), hands each
// message it frames (unturned.go's Host.Message) back to it as the host
// numbers it (Index.record, between the protocol's Arrive and Numbered or
// Commit, called in unturned.go where its type is named, as its bytes are
// fed in index.go's dataOn: calls through this interface on every message
// and chunk were a cost of their own), and asks it what decides
// whether a message is final: the messages it holds for an inference
// (Held), the oldest reference it waits to resolve (FirstUnresolved), its
// askers (the pairing: a pair lies in the records of both messages, or
// for messages whose records have no room, in the connection: Link).
type nativeConn interface {
	decode.Feed
	Idle()
	MidStream()
	// Pending reports whether new messages wait for an inference; Settle
	// decides it on what is held (the connection or capture ended);
	// Quiet is Settle when the input went quiet, giving up the askers too;
	// Finish says no asker can be answered any more.
	Pending() bool
	Settle()
	Quiet()
	Finish()
	Held() []int32
	FirstUnresolved() (int, bool)
	OldestOpen() int32
	PairFinal(n int32, last int, all bool) bool
	Link(asker, answer int32, lat time.Duration, askerKept bool)
	LinkOf(i int32) (partner int32, lat time.Duration, answer, ok bool)
	Unlink(i int32)
}

// nativeCapture is what a capture's natively decoded connections share
// (unturned.go: the framers' buffer budget).
type nativeCapture interface {
	// Buffered is the bytes their framers hold.
	Buffered() int
}

func newConnection(idx uint32, conn dissect.Conn, rule Rule) *connection {
	cn := &connection{}
	initConnection(cn, idx, conn, rule)
	return cn
}

// initConnection makes cn, the zero connection, connection idx of conn
// (newConnection, or newNative's with its protocol state beside it).
func initConnection(cn *connection, idx uint32, conn dissect.Conn, rule Rule) {
	cn.idx = idx
	cn.info.Conn, cn.info.Rule = conn, rule
	cn.key = &dissect.Conn{Client: conn.Client, Server: conn.Server}
}
