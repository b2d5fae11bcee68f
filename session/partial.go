package session

import (
	"fmt"
	"sort"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// account adds what fr holds now, beside the held0 it held before a call,
// to the bytes the framers of all connections hold, and sheds partial
// messages when that passes Limits.MaxBuffered. Every framer holds at most
// one partial message of up to 64 KiB; ten thousand connections that each
// leave one unfinished in both directions would hold 1.3 GB (issue 17).
func (c *Index) account(fr *unturned.Framer, held0 int) {
	c.held += fr.Held() - held0
	if c.held > c.limits.MaxBuffered {
		c.shed()
	}
}

// shed drops the largest framer buffers until the framers hold at most
// half of Limits.MaxBuffered (so that one scan of the
// connections frees room for many chunks), each with a finding on its
// connection, and notes the first time on the capture.
func (c *Index) shed() {
	type buf struct {
		cn   *connection
		dir  dissect.Dir
		held int
	}
	var bufs []buf
	for _, cn := range c.conns {
		for d, fr := range cn.framer {
			if h := fr.Held(); h > 0 {
				bufs = append(bufs, buf{cn, dissect.Dir(d), h})
			}
		}
	}
	sort.Slice(bufs, func(i, j int) bool { return bufs[i].held > bufs[j].held })
	limit := c.limits.MaxBuffered
	why := fmt.Sprintf("past max_total_buffer: the framers of all connections held %d bytes, more than %d", c.held, limit)
	if !c.shedNoted {
		c.shedNoted = true
		c.captureFinding(dissect.Finding{Severity: dissect.Warn, Group: dissect.Sequence, Bit: -1,
			Text: fmt.Sprintf("partial messages of all connections held more than %d bytes (max_total_buffer): the largest are dropped, each with a finding on its connection", limit)})
	}
	for _, b := range bufs {
		if c.held <= limit/2 {
			break
		}
		fr := b.cn.framer[b.dir]
		c.touch(b.cn)
		c.held -= fr.DropPartial(why)
		c.connFindings(b.cn, fr.Findings())
	}
}
