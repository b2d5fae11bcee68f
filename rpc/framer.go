package rpc

import (
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// framer is a frame Stream that remembers which chunk brought which bytes,
// so that a frame held while the stream resynchronises, and yielded later,
// keeps the frame number and time of the packet that completed it
// (outputs.md "Ordering"). It keeps a mark per chunk only for the bytes the
// stream still holds, so its memory follows the stream's own bound.
type framer struct {
	st    *ulinkrpc.Stream
	marks []mark
	// unordered says a mark's Seq is below an earlier mark's: a KCP
	// conversation's messages come in sn order, each with the stamp of its
	// own datagram (kcpheld.go), and a message held behind a gap may have
	// come before the one that fills it. The earliest chunk held is then
	// the least Seq of the marks, not the first (seq).
	unordered bool
}

type mark struct {
	end int64 // stream offset just past the chunk
	at  Stamp
}

func newFramer(cfg ulinkrpc.StreamConfig, midStream bool) *framer {
	f := &framer{st: ulinkrpc.NewStream(cfg)}
	if midStream {
		f.st.StartUnsynced()
	}
	return f
}

// feed feeds a chunk that arrived at at; yield gets each frame with the
// stamp of the chunk holding its last byte.
func (f *framer) feed(chunk []byte, at Stamp, yield func([]byte, ulinkrpc.FrameInfo, Stamp)) {
	if len(chunk) == 0 {
		return
	}
	if len(f.marks) == 0 {
		// The marks cover every byte held: with none, the stream holds
		// nothing of earlier chunks, so every frame this chunk completes
		// ends in it, and a mark is needed only if it leaves bytes held
		// (the common case, a chunk of whole frames, costs none).
		f.st.Feed(chunk, func(b []byte, info ulinkrpc.FrameInfo) { yield(b, info, at) })
		if f.st.Stats().Buffered > 0 {
			f.marks = append(f.marks, mark{end: f.st.Offset(), at: at})
			f.unordered = false
		}
		return
	}
	f.unordered = f.unordered || at.Seq < f.marks[len(f.marks)-1].at.Seq
	f.marks = append(f.marks, mark{end: f.st.Offset() + int64(len(chunk)), at: at})
	f.st.Feed(chunk, func(b []byte, info ulinkrpc.FrameInfo) { yield(b, info, f.stamp(info.Offset+4+int64(len(b)), at)) })
	f.trim()
}

// end ends the stream; held frames keep their own stamps.
func (f *framer) end(at Stamp, yield func([]byte, ulinkrpc.FrameInfo, Stamp)) []dissect.Finding {
	fs := f.st.End(func(b []byte, info ulinkrpc.FrameInfo) { yield(b, info, f.stamp(info.Offset+4+int64(len(b)), at)) })
	f.marks, f.unordered = f.marks[:0], false
	return fs
}

// seq is the Seq of the earliest chunk whose bytes the stream holds; there
// are marks.
func (f *framer) seq() uint64 {
	if !f.unordered {
		return f.marks[0].at.Seq
	}
	seq := f.marks[0].at.Seq
	for _, m := range f.marks[1:] {
		seq = min(seq, m.at.Seq)
	}
	return seq
}

// stamp finds the chunk holding the byte just before end.
func (f *framer) stamp(end int64, def Stamp) Stamp {
	for _, m := range f.marks {
		if m.end >= end {
			return m.at
		}
	}
	return def
}

// trim forgets the marks of bytes the stream no longer holds.
func (f *framer) trim() {
	held := f.st.Offset() - f.st.Stats().Buffered
	i := 0
	for i < len(f.marks) && f.marks[i].end <= held {
		i++
	}
	if i > 0 {
		f.marks = append(f.marks[:0], f.marks[i:]...)
	}
}
