package scenario

import (
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// TestBothEndsSplit: the server's capture has every packet, on its clock;
// the client's has every packet less the one it lost plus a copy of each
// retransmitted one; the same seed gives the same captures.
func TestBothEndsSplit(t *testing.T) {
	s := readFixture(t, "pings")
	ps, _, err := s.Packets()
	if err != nil {
		t.Fatal(err)
	}
	be := BothEnds{Offset: time.Second, DriftPPM: 10, Delay: time.Millisecond, Jitter: 10 * time.Microsecond, LossEvery: 2, Retransmit: 50 * time.Millisecond, DropLastServerSegment: true, Seed: 3}
	client, server, tr := be.Split(ps, layers.LinkTypeEthernet, 27016)
	retrans := 0
	for k := range ps {
		if tr.Delivered[k+1]-tr.Sent[k+1] > int64(40*time.Millisecond) {
			retrans++
		}
	}
	if len(server) != len(ps) || tr.LostInClient == 0 || retrans == 0 {
		t.Fatalf("server %d packets of %d, lost in client %d, %d held up; want all, one, some", len(server), len(ps), tr.LostInClient, retrans)
	}
	seen := map[string]int{}
	for _, p := range client {
		seen[string(p.Data)]++
	}
	twice := 0
	for _, n := range seen {
		if n == 2 {
			twice++
		}
	}
	if got, want := len(client), len(ps)-1+twice; got != want || twice == 0 {
		t.Errorf("client %d packets, %d twice; want %d (all less one plus the retransmissions), some twice", got, twice, want)
	}
	if got, want := server[0].Time.UnixNano(), tr.ServerClock(tr.ServerFirst); got != want {
		t.Errorf("server's first time = %d; want the server clock at its true time, %d", got, want)
	}
	c2, s2, _ := be.Split(ps, layers.LinkTypeEthernet, 27016)
	if len(c2) != len(client) || len(s2) != len(server) || !c2[len(c2)-1].Time.Equal(client[len(client)-1].Time) {
		t.Error("two splits with the same seed differ")
	}
}
