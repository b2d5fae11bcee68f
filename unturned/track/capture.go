package track

import (
	"fmt"
	"sort"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/listeners"
)

// Capture is what the Unturned connections of one capture share.
type Capture struct {
	profile *unturned.Profile
	limits  *unturned.Limits
	history bool
	note    func(dissect.Finding) // a capture-wide finding
	intern  func([]byte) string   // the host's one copy of a listener type name
	// names: the host keeps what the tables name of each message's
	// listener (Host.Listener); without it Listener is not called.
	names bool
	conns []*Conn // in the order they were made: shed's
	// held is the bytes the framers of all connections hold
	// (Framer.Held); shedNoted says the capture was told once.
	held      int
	shedNoted bool
	dec       unturned.Decoded // the inferences' scratch
	op        listeners.Op     // the commit's
}

// NewCapture returns the shared state of a capture's Unturned connections,
// decoded with profile p under limits lim (the host's, defaults filled
// in, not changed after). With history the host keeps every message (a
// full index): the tables keep checkpoints and the ping statistics the
// numbers of their pings. note takes a capture-wide finding; intern
// gives the host's one copy of a listener type name (a function, not a
// Host method: it is called for every USMN message).
func NewCapture(p *unturned.Profile, lim *unturned.Limits, history bool, note func(dissect.Finding), intern func([]byte) string) *Capture {
	return &Capture{profile: p, limits: lim, history: history, note: note, intern: intern, names: true}
}

// SetNames says whether the host keeps what the tables name of each
// message's listener (Host.Listener, the default); a host that does not
// is spared the call, every USMN message's.
func (k *Capture) SetNames(on bool) { k.names = on }

// Init makes c, the zero Conn (in a struct of the host's, so that the
// host's per-connection state and the Conn are one allocation), the state
// of a new connection, reporting to h.
func (k *Capture) Init(c *Conn, h Host) {
	c.k, c.host = k, h
	c.framer[dissect.C2S] = unturned.NewFramer(k.limits.MaxMessage)
	c.framer[dissect.S2C] = unturned.NewFramer(k.limits.MaxMessage)
	k.conns = append(k.conns, c)
}

// Buffered is the bytes the framers of all connections hold.
func (k *Capture) Buffered() int { return k.held }

// account adds what fr holds now, beside the held0 it held before a call,
// to the bytes the framers of all connections hold, and sheds partial
// messages when that passes Limits.MaxBuffered. Every framer holds at most
// one partial message of up to 64 KiB; ten thousand connections that each
// leave one unfinished in both directions would hold 1.3 GB (issue 17).
func (k *Capture) account(fr *unturned.Framer, held0 int) {
	k.held += fr.Held() - held0
	if k.held > k.limits.MaxBuffered {
		k.shed()
	}
}

// shed drops the largest framer buffers until the framers hold at most
// half of Limits.MaxBuffered (so that one scan of the connections frees
// room for many chunks), each with a finding on its connection, and notes
// the first time on the capture.
func (k *Capture) shed() {
	type buf struct {
		c    *Conn
		dir  dissect.Dir
		held int
	}
	var bufs []buf
	for _, c := range k.conns {
		for d, fr := range c.framer {
			if h := fr.Held(); h > 0 {
				bufs = append(bufs, buf{c, dissect.Dir(d), h})
			}
		}
	}
	sort.Slice(bufs, func(i, j int) bool { return bufs[i].held > bufs[j].held })
	limit := k.limits.MaxBuffered
	why := fmt.Sprintf("past max_total_buffer: the framers of all connections held %d bytes, more than %d", k.held, limit)
	if !k.shedNoted {
		k.shedNoted = true
		k.note(dissect.Finding{Severity: dissect.Warn, Group: dissect.Sequence, Bit: -1,
			Text: fmt.Sprintf("partial messages of all connections held more than %d bytes (max_total_buffer): the largest are dropped, each with a finding on its connection", limit)})
	}
	for _, b := range bufs {
		if k.held <= limit/2 {
			break
		}
		fr := b.c.framer[b.dir]
		k.held -= fr.DropPartial(why)
		b.c.findings(fr.Findings())
	}
}
