package capture

import (
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/ip4defrag"
	"github.com/gopacket/gopacket/layers"
)

// IPv4 fragments (RFC 791 §2.3) are joined with gopacket's ip4defrag,
// which checks them as a receiver does (overlaps, an offset or a length
// past 65,535, fragments beyond the final one) and drops a datagram's
// fragments when they contradict each other. Around it, fragState bounds
// what is held (Options.MaxFragments, MaxFragmentBytes,
// MaxFragmentDatagrams): a fragment that would pass a bound first drops
// the datagram begun longest ago, and a datagram not whole fragTimeout
// after its first fragment (capture time, Linux's ipfrag_time) is dropped.
// The whole datagram then goes on to TCP reassembly or UDP like any
// unfragmented packet; what was dropped becomes a TCP gap.
//
// Each datagram in progress has an ip4defrag.IPv4Defragmenter of its own,
// so that evicting or expiring one is deleting it: the package can only
// discard by age across all of its datagrams.

// fragTimeout is how long, in capture time, a datagram may take to
// complete from its first fragment (Linux's net.ipv4.ipfrag_time).
const fragTimeout = 30 * time.Second

// fragKey names a datagram as RFC 791 does: source, destination, protocol
// and identification.
type fragKey struct {
	src, dst [4]byte
	id       uint16
	proto    layers.IPProtocol
}

// fragDatagram is a datagram being reassembled.
type fragDatagram struct {
	d     *ip4defrag.IPv4Defragmenter
	start time.Time // capture time of its first fragment
	seq   uint64    // tells this datagram from an older one of the same key in the queue
	frags int       // fragments given to d (a repeat, which d ignores, counts again)
	bytes int       // their bytes
}

// fragQueued is a datagram in the order datagrams began.
type fragQueued struct {
	k   fragKey
	seq uint64
}

// fragState holds the IPv4 datagrams being reassembled.
type fragState struct {
	dgrams map[fragKey]*fragDatagram
	queue  []fragQueued // oldest first; entries whose datagram is gone are skipped
	seq    uint64
	frags  int // held in all, as fragDatagram counts them
	bytes  int

	// For the note at the end of input: fragments dropped by reason.
	expired, evicted, rejected, incomplete int64
}

func (f *fragState) init() { f.dgrams = map[fragKey]*fragDatagram{} }

// add takes one fragment, hdr its IPv4 header and body what the frame
// holds of its data, both only valid until the next frame. It returns the
// datagram when this fragment completed it, else nil.
func (f *fragState) add(e *engine, hdr, body []byte) *layers.IPv4 {
	e.stats.Fragments++
	if e.stats.Fragments == 1 {
		e.note("frag", Flow{}, LevelNote, "frame %d is an IPv4 fragment: fragmented datagrams are reassembled (a summary follows at the end of input)", e.frame)
	}
	f.expire(e)
	// ip4defrag keeps the layer it is given, and the layer points into
	// its bytes: both must outlive the frame.
	buf := make([]byte, len(hdr)+len(body))
	copy(buf[copy(buf, hdr):], body)
	ip := new(layers.IPv4)
	if err := ip.DecodeFromBytes(buf, gopacket.NilDecodeFeedback); err != nil {
		f.drop(e, &f.rejected, 1, "malformed: "+err.Error())
		return nil
	}
	k := fragKey{proto: ip.Protocol, id: ip.Id}
	copy(k.src[:], ip.SrcIP)
	copy(k.dst[:], ip.DstIP)
	size := len(buf)
	if size > e.opt.MaxFragmentBytes {
		f.drop(e, &f.evicted, 1, "over the caps")
		return nil
	}
	g := f.dgrams[k]
	for f.frags+1 > e.opt.MaxFragments || f.bytes+size > e.opt.MaxFragmentBytes || g == nil && len(f.dgrams) >= e.opt.MaxFragmentDatagrams {
		old := f.evictOldest(e)
		if old == nil {
			// Nothing left to drop: a bound below one fragment.
			f.drop(e, &f.evicted, 1, "over the caps")
			return nil
		}
		if old == g {
			g = nil // the oldest was this fragment's own datagram: it starts again
		}
	}
	if g == nil {
		f.seq++
		g = &fragDatagram{d: ip4defrag.NewIPv4Defragmenter(), start: e.ts, seq: f.seq}
		f.dgrams[k] = g
		f.queue = append(f.queue, fragQueued{k, f.seq})
	}
	out, err := g.d.DefragIPv4WithTimestamp(ip, e.ts)
	switch {
	case err != nil:
		// ip4defrag dropped the datagram's fragments: a receiver would.
		f.remove(k, g)
		f.drop(e, &f.rejected, int64(g.frags)+1, err.Error())
		return nil
	case out == nil:
		g.frags++
		g.bytes += size
		f.frags++
		f.bytes += size
		return nil
	}
	f.remove(k, g)
	e.stats.Reassembled++
	return out
}

// remove forgets a datagram, complete or dropped; its queue entry is
// skipped when it comes up, and the queue compacted when most entries
// are such.
func (f *fragState) remove(k fragKey, g *fragDatagram) {
	delete(f.dgrams, k)
	f.frags -= g.frags
	f.bytes -= g.bytes
	if len(f.queue) > 64 && len(f.queue) > 4*len(f.dgrams) {
		q := f.queue[:0]
		for _, x := range f.queue {
			if h := f.dgrams[x.k]; h != nil && h.seq == x.seq {
				q = append(q, x)
			}
		}
		clear(f.queue[len(q):])
		f.queue = q
	}
}

// oldest returns the datagram begun longest ago, dropping queue entries
// of datagrams already gone.
func (f *fragState) oldest() (fragKey, *fragDatagram) {
	for len(f.queue) > 0 {
		x := f.queue[0]
		if g := f.dgrams[x.k]; g != nil && g.seq == x.seq {
			return x.k, g
		}
		f.queue = f.queue[1:]
	}
	return fragKey{}, nil
}

// evictOldest drops the datagram begun longest ago to make room, and
// returns it; nil when nothing is held.
func (f *fragState) evictOldest(e *engine) *fragDatagram {
	k, g := f.oldest()
	if g != nil {
		f.remove(k, g)
		f.drop(e, &f.evicted, int64(g.frags), "over the caps")
	}
	return g
}

// expire drops the datagrams not whole fragTimeout after they began.
func (f *fragState) expire(e *engine) {
	for {
		k, g := f.oldest()
		if g == nil || e.age(g.start) <= fragTimeout {
			return
		}
		f.remove(k, g)
		f.drop(e, &f.expired, int64(g.frags), "incomplete after 30 s")
	}
}

// drop counts n dropped fragments under a reason and says so the first
// time; finish gives the totals.
func (f *fragState) drop(e *engine, reason *int64, n int64, why string) {
	*reason += n
	e.stats.FragmentsDropped += n
	e.note("fragdrop", Flow{}, LevelWarn, "frame %d: IPv4 fragments dropped (%s): their data is lost; later drops are counted at the end of input", e.frame, why)
}

// finish drops what is still incomplete and sums up.
func (f *fragState) finish(e *engine) {
	for k, g := range f.dgrams {
		f.remove(k, g)
		f.incomplete += int64(g.frags)
		e.stats.FragmentsDropped += int64(g.frags)
	}
	f.queue = nil
	st := &e.stats
	if st.Fragments == 0 {
		return
	}
	lvl := LevelNote
	if st.FragmentsDropped > 0 {
		lvl = LevelWarn
	}
	e.note("", Flow{}, lvl,
		"IPv4 fragments: %d read, %d datagrams reassembled; %d fragments dropped: %d incomplete after 30 s, %d over the caps (%d datagrams, %d fragments, %d bytes at once), %d malformed or contradicting, %d incomplete at the end of input",
		st.Fragments, st.Reassembled, st.FragmentsDropped, f.expired, f.evicted,
		e.opt.MaxFragmentDatagrams, e.opt.MaxFragments, e.opt.MaxFragmentBytes, f.rejected, f.incomplete)
}
