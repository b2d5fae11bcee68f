package session

import (
	"math/rand"
	"net/netip"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
)

// TestStamp: the index record's connection and time equal what Message
// decodes, for every message of a generated conversation over two
// connections, and there is no stamp outside 1..Len.
func TestStamp(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	dirs, msgs := genConversation(rng, 300)
	f := newCVFeeder()
	g := &cvFeeder{c: f.c, conn: dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.3:50413"), Server: cvConn.Server}}
	for i := range msgs {
		f.send(dirs[i], msgs[i])
		g.frame = f.frame + 1000 // a later time than f's, so the two differ
		g.send(dirs[i], msgs[i])
	}
	f.c.Finish()
	if f.c.Len() == 0 {
		t.Fatal("no messages decoded")
	}
	for n := 1; n <= f.c.Len(); n++ {
		conn, at, ok := f.c.Stamp(n)
		m := f.c.Message(n)
		if !ok || conn != m.Conn || !at.Equal(m.Time) {
			t.Fatalf("Stamp(%d) = %v, %v, %v; want %v, %v, true", n, conn, at, ok, m.Conn, m.Time)
		}
	}
	for _, n := range []int{0, -1, f.c.Len() + 1} {
		if _, _, ok := f.c.Stamp(n); ok {
			t.Errorf("Stamp(%d) ok; want false", n)
		}
	}
}
