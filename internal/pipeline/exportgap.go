package pipeline

import (
	"sort"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/decode"
)

// Capture gaps in an export (issue 30: transport-mess lost the first byte
// of a length header): the written stream keeps the gap as a sequence
// jump, and the messages after it that a resynchronisation chains from.

// resyncFrames is how many frames a resynchronisation chains before it
// accepts a place as a frame start, in both framings: SystemSockets takes
// two whole messages and a third's length header, ULinkRPC three whole
// frames (unturned's resyncRule, ulinkrpc's resyncFrames).
const resyncFrames = 3

// placeAcross places one direction's messages with place and keeps the
// stream bytes the capture lost before the last kept byte (withLost).
// After such a gap the re-read resynchronises, as the original did, and
// it accepts a frame start only with the frames that chain from it: so
// when a kept message lies after a gap, the first resyncFrames messages
// the original decoded after the gap are kept too (added to kept and to
// the export's keep, its context), and the direction is placed again.
func placeAcross(place func(kept map[int]bool, at map[int]decode.Range) ([]decode.Range, error), lost []capture.Range, hs []decode.Placed, kept, keep map[int]bool) ([]capture.Range, error) {
	at := map[int]decode.Range{}
	rs, err := place(kept, at)
	r := joined(rs)
	if err != nil || len(lost) == 0 {
		return withLost(r, lost), err
	}
	added := false
	for li, l := range lost {
		next := int64(-1)
		if li+1 < len(lost) {
			next = lost[li+1].From
		}
		var after []decode.Placed // placed after l, before the next gap
		later := false            // a kept message lies after l
		for _, h := range hs {
			p, ok := at[h.N]
			if !ok || p.From < l.To {
				continue
			}
			later = later || kept[h.N]
			if next < 0 || p.To <= next {
				after = append(after, h)
			}
		}
		if !later {
			continue
		}
		sort.SliceStable(after, func(i, j int) bool { return at[after[i].N].From < at[after[j].N].From })
		for _, h := range after[:min(len(after), resyncFrames)] {
			if !kept[h.N] {
				kept[h.N], keep[h.N], added = true, true, true
			}
		}
	}
	if added {
		if rs, err = place(kept, nil); err != nil {
			return nil, err
		}
		r = joined(rs)
	}
	return withLost(r, lost), nil
}

// withLost adds to the kept ranges r the stream bytes the capture lost
// before the last kept byte. The written stream then lacks them too: a
// sequence jump where the capture had one, so the re-read finds the same
// gap (its framing resynchronises as the original's did, past what the
// gap cut) and delivers the bytes after it at the same packet as the
// original did, when the gap is given up (issue 30: transport-mess).
func withLost(r, lost []capture.Range) []capture.Range {
	if len(r) == 0 {
		return r
	}
	end := r[len(r)-1].To
	for _, l := range lost {
		if l.From < end {
			r = append(r, capture.Range{From: l.From, To: min(l.To, end)})
		}
	}
	return capture.JoinRanges(r)
}

// capturedIn is d's Captured for direction dir.
func capturedIn(d *capture.FlowData, dir int) func(from, to int64) bool {
	return func(from, to int64) bool { return d.Captured(dir, from, to) }
}
