package capture

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// TestMaxBufferedTotal: two flows each hold out-of-order data behind a
// missing segment, each under the per-flow cap but together over the
// total cap: the total cap forces a skip and names itself in the note,
// and every byte that was captured is still delivered after the gap.
func TestMaxBufferedTotal(t *testing.T) {
	chunk := strings.Repeat("x", 1000)
	type step struct {
		c conv
		s seg
	}
	flows := []conv{plain, {mustAP("10.0.0.3:50001"), srv4}}
	var segs []step
	for _, c := range flows {
		segs = append(segs, step{c, seg{false, 1000, "S", ""}}, step{c, seg{true, 5000, "SA", ""}})
	}
	for i := range 5 {
		for _, c := range flows {
			// Bytes 1001..1100 of each client stream never come.
			segs = append(segs, step{c, seg{false, 1001 + 100 + uint32(i*1000), "PA", chunk}})
		}
	}
	var pkts []Packet
	for i, s := range segs {
		pkts = append(pkts, Packet{Data: frame(t, frameOpts{link: layers.LinkTypeEthernet}, s.c, s.s), Link: layers.LinkTypeEthernet, Time: t0.Add(time.Duration(i) * time.Millisecond)})
	}
	opt := Options{MaxBufferedPerFlow: 8 * pageBytes, MaxBufferedTotal: 6 * pageBytes}
	src := NewPackets(pkts, opt)
	r := drain(t, src)
	want := fmt.Sprintf("(%d bytes per flow, %d in all)", 8*pageBytes, 6*pageBytes)
	if !slices.ContainsFunc(r.notes, func(n string) bool {
		return strings.Contains(n, "out-of-order buffer cap hit") && strings.Contains(n, want)
	}) {
		t.Errorf("notes = %q; want a buffer cap note naming %s", r.notes, want)
	}
	if st := src.Stats(); st.BufferCapHit < 1 {
		t.Errorf("stats cap hits %d; want at least 1", st.BufferCapHit)
	}
	for _, c := range flows {
		got := r.stream(Flow{c.client, c.server}, false)
		if want := "<gap 100>" + strings.Repeat(chunk, 5); got != want {
			t.Errorf("%v client stream = %.40q… (%d bytes); want %.40q… (%d bytes)", c.client, got, len(got), want, len(want))
		}
	}

	// With the same per-flow cap and the default total, or with the
	// defaults, everything is buffered until the end of input, where the
	// gaps are flushed without a cap note: the total cap made the skip.
	for _, o := range []Options{{MaxBufferedPerFlow: 8 * pageBytes}, {}} {
		r = drain(t, NewPackets(pkts, o))
		if slices.ContainsFunc(r.notes, func(n string) bool { return strings.Contains(n, "buffer cap hit") }) {
			t.Errorf("%+v: notes = %q; want no cap hit for 5 KB per flow", o, r.notes)
		}
	}
}

// TestOptionDefaults: zero Options take the documented defaults
// (SECURITY.md "Bounds"; cmd/usmnscope checks the table against them).
func TestOptionDefaults(t *testing.T) {
	got := Options{}.withDefaults()
	want := Options{TransportPort: 27016, QueryPort: 27015, MaxBufferedPerFlow: 1 << 20, MaxBufferedTotal: 64 << 20, MaxFlows: 10000}
	if got != want {
		t.Errorf("Options{}.withDefaults() = %+v; want %+v", got, want)
	}
	set := Options{TransportPort: 1, QueryPort: 2, MaxBufferedPerFlow: 3, MaxBufferedTotal: 4, MaxFlows: 5}
	if got := set.withDefaults(); got != set {
		t.Errorf("withDefaults changed set options: %+v; want %+v", got, set)
	}
}
