package rpc

import (
	"cmp"
	"slices"
)

// A KCP reassembler holds the segments that come ahead of a missing sn
// (kcp.Reassembler.Holding) and hands on the messages they complete
// later than they came: once the gap fills, when too much is held behind
// it, at Abandon or at End. Such a message arrived with the datagram after
// which it could be delivered (ulinkrpc.md 2.3,
// kcp.Message.Datagram): the one that filled the gap before it, or
// brought the last of its own segments if that came later (issue 24:
// within a direction n follows stream order); one handed on by a skip of a
// gap that never filled, with the latest of its own datagrams and its
// predecessors', not with the event that hands it on (outputs.md
// "Ordering": whatever the decoder had to wait for). So each
// side keeps, as the framer does for the frame stream (framer.go) and
// wsMarks for a WebSocket decoder (wsheld.go), a mark of each datagram
// whose segments its reassembler holds, in kcpMarks, while it holds any:
//
//   - a message goes into its conversation's frame stream with the stamp
//     of its datagram (kcpStamp), and the framer stamps the frames it ends
//     by it;
//   - Holding's watermark is the datagram of the earliest segment held
//     (kcpSeq), and the hold lasts exactly while segments are held.
//
// Without them a KCP Request held behind a lost sn 0 in frame 2 was numbered
// after another connection's Request of frame 3 (TestRPCHostKCPHeld): the
// session did not hold numbering for it, and End handed it on with its own
// stamp.

// kcpMark says datagram dg (as the reassembler counts them) came at at.
type kcpMark struct {
	dg uint64
	at Stamp
}

// markKCP keeps the marks of the datagrams whose segments the reassembler
// holds after an event at st, and only theirs (the latest datagram is the
// event's, if it fed one).
func (sd *side) markKCP(st Stamp) {
	first, ok := sd.kcp.Holding()
	if !ok {
		sd.kcpMarks = sd.kcpMarks[:0]
		return
	}
	i := 0
	for i < len(sd.kcpMarks) && sd.kcpMarks[i].dg < first {
		i++
	}
	if i > 0 {
		sd.kcpMarks = append(sd.kcpMarks[:0], sd.kcpMarks[i:]...)
	}
	dg := sd.kcp.Datagrams()
	if k := len(sd.kcpMarks); (k == 0 || sd.kcpMarks[k-1].dg != dg) && sd.kcp.HoldsFrom(dg) {
		sd.kcpMarks = append(sd.kcpMarks, kcpMark{dg: dg, at: st})
	}
	if len(sd.kcpMarks) > sd.kcpKeep {
		// The segments of a datagram between the earliest and the latest
		// may all be let go (another conversation's gap filled): forget
		// its mark too, so that the marks never outnumber twice the
		// datagrams held from, which the reassembler's bounds limit.
		sd.kcpMarks = slices.DeleteFunc(sd.kcpMarks, func(m kcpMark) bool { return !sd.kcp.HoldsFrom(m.dg) })
		sd.kcpKeep = 2*len(sd.kcpMarks) + 16
	}
}

// kcpStamp is the stamp of datagram dg: its mark's, else the current
// event's (a datagram fed now has no mark yet).
func (s *Session) kcpStamp(sd *side, dg uint64) Stamp {
	if i, ok := slices.BinarySearchFunc(sd.kcpMarks, dg, func(m kcpMark, dg uint64) int { return cmp.Compare(m.dg, dg) }); ok {
		return sd.kcpMarks[i].at
	}
	return s.stamp
}

// kcpSeq is Holding's watermark for a side whose reassembler holds
// segments from datagram first on: the Seq of that datagram.
func (s *Session) kcpSeq(sd *side, first uint64) uint64 {
	return s.kcpStamp(sd, first).Seq
}
