package scenario

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
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

// bothEndsFixture is the two-ended fixture (fixtures/captures/two-ends/):
// a 300-message load session of two connections as its client and server
// hosts capture it, the server's clock 1.75 s ahead and 40 ppm fast, a
// 3 ms path that loses every 17th client segment, the client capture
// missing the server's last segment.
func bothEndsFixture(t *testing.T) (client, server []byte) {
	t.Helper()
	var buf bytes.Buffer
	if _, err := (Scale{Messages: 300, Conns: 2, Seed: 7}).Generate(&buf, PCAP); err != nil {
		t.Fatal(err)
	}
	r, err := pcapgo.NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var ps []Packet
	for {
		d, ci, err := r.ReadPacketData()
		if err != nil {
			break
		}
		ps = append(ps, Packet{Time: ci.Timestamp, Data: append([]byte(nil), d...)})
	}
	be := BothEnds{Offset: 1750 * time.Millisecond, DriftPPM: 40, Delay: 3 * time.Millisecond, Jitter: 40 * time.Microsecond,
		LossEvery: 17, Retransmit: 200 * time.Millisecond, DropLastServerSegment: true, Stretch: 1000, Seed: 1}
	c, s, _ := be.Split(ps, r.LinkType(), 27016)
	var cb, sb bytes.Buffer
	if err := WritePackets(&cb, PCAPNG, "", c); err != nil {
		t.Fatal(err)
	}
	if err := WritePackets(&sb, PCAPNG, "", s); err != nil {
		t.Fatal(err)
	}
	return cb.Bytes(), sb.Bytes()
}

// TestGoldenBothEnds regenerates the two-ended fixture and fails when the
// committed files differ; -update rewrites them (make fixtures).
func TestGoldenBothEnds(t *testing.T) {
	client, server := bothEndsFixture(t)
	dir := "../fixtures/captures/two-ends"
	for name, b := range map[string][]byte{"client.pcapng": client, "server.pcapng": server} {
		path := filepath.Join(dir, name)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (run make fixtures)", path, err)
			continue
		}
		if !bytes.Equal(old, b) {
			t.Errorf("%s is stale (run make fixtures)", path)
		}
	}
}
