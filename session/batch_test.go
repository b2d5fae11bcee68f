package session

import (
	"net/netip"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestBatch checks that a Batch keeps readers out until EndBatch while the
// feeder's own calls go on under it (a call that took the lock again would
// deadlock), and that a streaming Index, which has no reader, takes no
// lock for it.
func TestBatch(t *testing.T) {
	conn := dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.2:40000"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	feed := func(c *Index) {
		c.Open(conn, RuleSYN, time.Unix(1, 0), 1)
		c.DataAt(conn, dissect.C2S, []byte{0, 1, 5}, time.Unix(1, 0), 2, -1)
		c.Ref(conn)
	}
	for _, streaming := range []bool{false, true} {
		c := NewIndex(unturned.Default())
		if streaming {
			c.SetStream(Stream{})
		}
		c.Batch()
		feed(c)
		if got, want := c.mu.TryRLock(), streaming; got != want {
			t.Errorf("streaming %v: a reader's TryRLock in a batch = %v; want %v", streaming, got, want)
		}
		if streaming {
			c.mu.RUnlock()
		}
		c.EndBatch()
		if !c.mu.TryRLock() {
			t.Fatalf("streaming %v: the lock is still held after EndBatch", streaming)
		}
		c.mu.RUnlock()
		feed(c) // with its own locks again
		if c.Len() != 2 {
			t.Errorf("streaming %v: Len() = %d; want 2", streaming, c.Len())
		}
	}
}
