package capture

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// TestSimplePacketTime: a Simple Packet Block carries no timestamp; its
// frames take the time of the frame before (1970-01-01 before any), never
// the zero time (which wrapped to 1754-08-30 in 64-bit nanoseconds), and
// the end of input says how many there were (issue 29 point 5).
func TestSimplePacketTime(t *testing.T) {
	rs := recs(t, frameOpts{link: layers.LinkTypeEthernet}, plain, handshake()...)
	w := &ngFile{}
	w.shb(1)
	w.idb(layers.LinkTypeEthernet, 0)
	w.spb(uint32(len(rs[0].data)), rs[0].data) // before any timed frame
	w.epb(0, 1_700_000_000_000_000, rs[1].data)
	for _, r := range rs[2:] {
		w.spb(uint32(len(r.data)), r.data)
	}
	src, err := NewReader(bytes.NewReader(w.b), "spb.pcapng", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var times []time.Time
	var notes []string
	for {
		ev, err := src.Next()
		if err != nil {
			break
		}
		if ev.Kind == EventNote {
			notes = append(notes, ev.Text)
		} else {
			times = append(times, ev.Time)
		}
	}
	epoch, later := time.Unix(0, 0).UTC(), time.Unix(1_700_000_000, 0).UTC()
	if len(times) == 0 || !times[0].Equal(epoch) {
		t.Errorf("first event's time = %v; want %v (a simple block before any timed frame)", times, epoch)
	}
	for i, tm := range times[1:] {
		if !tm.Equal(later) {
			t.Errorf("event %d's time = %v; want %v, the timed frame's", i+2, tm, later)
		}
	}
	want := "spb.pcapng: " + strconv.Itoa(len(rs)-1) + " pcapng simple packet blocks carry no timestamp: each takes the time of the frame before it; the 1 before any timed frame take 1970-01-01 00:00:00 UTC, so times and round trips through them are not measured"
	if !slices.Contains(notes, want) {
		t.Errorf("notes = %q; want %q", notes, want)
	}
}

// TestUnknownSectionVersion: a file whose first section is of a major
// version this reader does not know is an error at once (it printed
// nothing and exited 0 before); a later one ends the input with an error
// note after the frames before it.
func TestUnknownSectionVersion(t *testing.T) {
	w := &ngFile{}
	w.shb(2)
	w.idb(layers.LinkTypeEthernet, 0)
	_, err := NewReader(bytes.NewReader(w.b), "v2.pcapng", Options{})
	if err == nil || !strings.Contains(err.Error(), "section header at byte 0: pcapng version 2.0, this reader knows 1.x") {
		t.Errorf("NewReader(version 2) = %v; want the version error", err)
	}
	rs := recs(t, frameOpts{link: layers.LinkTypeEthernet}, plain, handshake()...)
	w = &ngFile{}
	w.shb(1)
	w.idb(layers.LinkTypeEthernet, 0)
	w.epb(0, 0, rs[0].data)
	at := len(w.b)
	w.shb(3)
	r := drain(t, mustReader(t, w.b))
	want := "error: test: unreadable record at byte " + strconv.Itoa(at) + ": section header at byte " + strconv.Itoa(at) + ": pcapng version 3.0, this reader knows 1.x; read up to it"
	if len(r.opens) != 1 || !slices.Contains(r.notes, want) {
		t.Errorf("a later version 3 section: %d opens, notes %q; want 1 open and %q", len(r.opens), r.notes, want)
	}
}
