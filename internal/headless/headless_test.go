package headless

import (
	"net/netip"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/capture"
)

func TestStatsLine(t *testing.T) {
	for _, tc := range []struct {
		iface  string
		st     capture.Stats
		msgs   int
		rpc    int
		active time.Duration
		want   string
	}{
		{"lo", capture.Stats{Packets: 1000, KernelPackets: 1003, KernelDrops: 3}, 500, 0, 2 * time.Second,
			"live lo: 1000 packets, 500 messages in 2.000 s: 500 pkt/s, 250 msg/s; kernel 1003 packets, 3 drops; messages: 500 unturned, 0 ulinkrpc"},
		// ULinkRPC records are messages too (one numbering, outputs.md
		// "Ordering"), split out at the end.
		{"lo", capture.Stats{Packets: 90, KernelPackets: 90}, 60, 45, 3 * time.Second,
			"live lo: 90 packets, 60 messages in 3.000 s: 30 pkt/s, 20 msg/s; kernel 90 packets, 0 drops; messages: 15 unturned, 45 ulinkrpc"},
		// One packet or none: no time between first and last, no rate.
		{"any", capture.Stats{Packets: 1, KernelPackets: 1}, 0, 0, 0,
			"live any: 1 packets, 0 messages in 0.000 s: 0 pkt/s, 0 msg/s; kernel 1 packets, 0 drops; messages: 0 unturned, 0 ulinkrpc"},
		// The interface name is the user's: printed terminal-safe.
		{"e\x1b[2Jth0", capture.Stats{}, 0, 0, 0,
			"live e\\x1b[2Jth0: 0 packets, 0 messages in 0.000 s: 0 pkt/s, 0 msg/s; kernel 0 packets, 0 drops; messages: 0 unturned, 0 ulinkrpc"},
	} {
		if got := Line(tc.iface, tc.st, tc.msgs, tc.rpc, tc.active); got != tc.want {
			t.Errorf("Line(%q, %+v, %d, %d, %v) = %q; want %q", tc.iface, tc.st, tc.msgs, tc.rpc, tc.active, got, tc.want)
		}
	}
}

// TestRateSpan: a burst shorter than a second is rated over the whole
// capture, not over its own fraction of a millisecond (issue 17: 89,894
// pkt/s for 31 packets "in 0.000 s").
func TestRateSpan(t *testing.T) {
	for _, tc := range []struct {
		active, ran, want time.Duration
	}{
		{345 * time.Microsecond, 10 * time.Second, 10 * time.Second},
		{2 * time.Second, 10 * time.Second, 2 * time.Second},
		{0, 0, 0},
		{500 * time.Millisecond, 100 * time.Millisecond, 500 * time.Millisecond},
	} {
		if got := rateSpan(tc.active, tc.ran); got != tc.want {
			t.Errorf("rateSpan(%v, %v) = %v; want %v", tc.active, tc.ran, got, tc.want)
		}
	}
	if got, want := Line("lo", capture.Stats{Packets: 31, KernelPackets: 31}, 31, 0, rateSpan(345*time.Microsecond, 10*time.Second)),
		"live lo: 31 packets, 31 messages in 10.000 s: 3 pkt/s, 3 msg/s; kernel 31 packets, 0 drops; messages: 31 unturned, 0 ulinkrpc"; got != want {
		t.Errorf("31 packets in a 0.3 ms burst over 10 s: %q; want %q", got, want)
	}
}

// claimSource is a Source that records the flows claimed from it.
type claimSource struct {
	capture.Source
	claimed []capture.Flow
}

func (c *claimSource) ClaimDatagrams(f capture.Flow) { c.claimed = append(c.claimed, f) }

// TestTimedClaims: the headless run's timing wrapper passes a claim of a
// probed UDP flow (a KCP handshake on another port, --any-port) on to the
// capture; without it the pipeline could not claim the flow's datagrams.
func TestTimedClaims(t *testing.T) {
	src := &claimSource{}
	var ts capture.Source = &timed{Source: src}
	c, ok := ts.(capture.DatagramClaimer)
	if !ok {
		t.Fatal("timed is not a capture.DatagramClaimer")
	}
	f := capture.Flow{Client: netip.MustParseAddrPort("127.0.0.1:5000"), Server: netip.MustParseAddrPort("127.0.0.1:20001")}
	c.ClaimDatagrams(f)
	if len(src.claimed) != 1 || src.claimed[0] != f {
		t.Errorf("timed.ClaimDatagrams(%v) reached the capture as %v; want the flow once", f, src.claimed)
	}
}
