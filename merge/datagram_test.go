package merge

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
)

// events is a capture.Source over events given.
type events struct {
	evs []capture.Event
	i   int
}

func (e *events) Next() (*capture.Event, error) {
	if e.i >= len(e.evs) {
		return nil, io.EOF
	}
	e.i++
	return &e.evs[e.i-1], nil
}
func (e *events) Stats() capture.Stats { return capture.Stats{} }
func (e *events) Close() error         { return nil }

// testUnits reads a test datagram: a 4-byte session id, then units of a
// 4-byte sequence number and 4 bytes of data; a datagram of the id alone
// (a handshake) carries none.
func testUnits(dst []Unit, b []byte) (uint64, []Unit, bool) {
	if len(b) < 4 || (len(b)-4)%8 != 0 {
		return 0, dst, false
	}
	for o := 4; o < len(b); o += 8 {
		h := fnv.New64a()
		h.Write(b[o+4 : o+8])
		dst = append(dst, Unit{Seq: binary.BigEndian.Uint32(b[o:]), Hash: h.Sum64()})
	}
	return uint64(binary.BigEndian.Uint32(b)), dst, true
}

func dgram(sess uint32, units ...uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, sess)
	for _, u := range units {
		b = binary.BigEndian.AppendUint32(b, u)
		b = binary.BigEndian.AppendUint32(b, u*7)
	}
	return b
}

// TestDatagramSessions: a datagram session two captures have on
// different 4-tuples (a NAT) is one: every datagram handed on once under
// the first capture's flow (a unit's retransmission and the other
// capture's copies dropped, a handshake once), the clock estimated from
// the units, each unit's sight in both captures with its one-way delay.
// Two captures whose copies of a unit disagree are not merged.
func TestDatagramSessions(t *testing.T) {
	fa := capture.Flow{Client: netip.MustParseAddrPort("192.168.1.5:40000"), Server: netip.MustParseAddrPort("203.0.113.1:20000")}
	fb := capture.Flow{Client: netip.MustParseAddrPort("198.51.100.7:50000"), Server: netip.MustParseAddrPort("10.0.0.1:20000")}
	t0 := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	const offset, delay = 500 * time.Millisecond, 2 * time.Millisecond
	var a, b []capture.Event
	ev := func(f capture.Flow, at time.Duration, fromServer bool, data []byte) capture.Event {
		return capture.Event{Kind: capture.EventDatagram, Flow: f, Time: t0.Add(at), FromServer: fromServer, Data: data, Frame: 1}
	}
	a = append(a, ev(fa, 0, false, dgram(9)))
	b = append(b, ev(fb, delay+offset, false, dgram(9)))
	const units = 400
	for k := uint32(1); k <= units; k++ {
		at := time.Duration(k) * time.Millisecond
		if k%2 == 1 { // the client (capture a) sends
			a = append(a, ev(fa, at, false, dgram(9, k)))
			if k == 71 { // lost, sent again 100 ms later
				a = append(a, ev(fa, at+100*time.Millisecond, false, dgram(9, k)))
				b = append(b, ev(fb, at+100*time.Millisecond+delay+offset, false, dgram(9, k)))
				continue
			}
			b = append(b, ev(fb, at+delay+offset, false, dgram(9, k)))
		} else { // the server (capture b) sends
			b = append(b, ev(fb, at+offset, true, dgram(9, k)))
			a = append(a, ev(fa, at+delay, true, dgram(9, k)))
		}
	}
	sortEvents := func(evs []capture.Event) {
		for i := 1; i < len(evs); i++ {
			for j := i; j > 0 && evs[j].Time.Before(evs[j-1].Time); j-- {
				evs[j], evs[j-1] = evs[j-1], evs[j]
			}
		}
	}
	sortEvents(a)
	sortEvents(b)
	inputs := func(a, b []capture.Event) []Input {
		return []Input{
			{Capture: "a", Host: "a", Open: func() (capture.Source, error) { return &events{evs: a}, nil }},
			{Capture: "b", Host: "b", Open: func() (capture.Source, error) { return &events{evs: b}, nil }},
		}
	}
	p, err := NewPlanWith(inputs(a, b), Options{Units: testUnits})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Clocks[1]
	if d := c.OffsetNS + int64(offset); d > 1000 || d < -1000 || c.Matched != units || c.ErrorNS < 0 {
		t.Errorf("clock %+v; want offset -500 ms ± 1 µs from 400 units with a bound", c)
	}
	src, err := p.Open()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		e, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e.Flow != fa {
			t.Errorf("datagram on %v; want the first capture's flow %v", e.Flow, fa)
		}
		_, us, _ := testUnits(nil, e.Data)
		if len(us) == 0 {
			got = append(got, "hs")
		} else {
			got = append(got, fmt.Sprint(us[0].Seq))
		}
		if len(us) > 0 {
			end, ok := src.HostedEnd(fa, dirOf(e.FromServer))
			sg := p.Sight(fa, dirOf(e.FromServer), end)
			if !ok || sg == nil || len(sg.Seen) != 2 || !sg.HasOneWay {
				t.Fatalf("unit %d: sight %+v; want both captures' and a one-way delay", us[0].Seq, sg)
			}
			want := delay
			if us[0].Seq == 71 {
				want += 100 * time.Millisecond
			}
			if d := sg.OneWayNS - int64(want); d > 1000 || d < -1000 {
				t.Errorf("unit %d: one way %d; want %d", us[0].Seq, sg.OneWayNS, want)
			}
		}
	}
	want := []string{"hs"}
	for k := 1; k <= units; k++ {
		want = append(want, fmt.Sprint(k))
	}
	if s := strings.Join(got, " "); s != strings.Join(want, " ") {
		t.Errorf("handed on %s; want the handshake once and each unit once, in order", s)
	}

	// b's copy of unit 4 differs: not merged.
	for i := range b {
		if _, us, _ := testUnits(nil, b[i].Data); len(us) == 1 && us[0].Seq == 4 {
			b[i].Data = append(dgram(9), 0, 0, 0, 4, 1, 2, 3, 4)
		}
	}
	p, err = NewPlanWith(inputs(a, b), Options{Units: testUnits})
	if err != nil {
		t.Fatal(err)
	}
	fl := p.flows[fa]
	if fl == nil || fl.merged || !strings.Contains(fl.conflict, "disagree on its "+dissect.S2C.String()+" unit numbered 4") {
		t.Errorf("conflict = %+v; want not merged, the s2c unit 4 named", fl)
	}
	// ... and the two copies shown side by side in one error note, only
	// the first capture's datagrams handed on.
	src, err = p.Open()
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	handed := 0
	for {
		e, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch e.Kind {
		case capture.EventNote:
			if e.Level == capture.LevelError {
				notes = append(notes, e.Text)
			}
		case capture.EventDatagram:
			handed++
		}
	}
	wantNote := "s2c byte 8 of the datagram carrying unit 4 differs: a: 00 00 00 04 00 00 00 1c | b: 00 00 00 04 01 02 03 04"
	if len(notes) != 2 || notes[0] != fl.conflict || !strings.Contains(notes[1], wantNote) {
		t.Errorf("error notes %q; want the conflict and one showing both copies of unit 4: %q", notes, wantNote)
	}
	if handed != len(a) {
		t.Errorf("handed on %d datagrams; want capture a's %d only", handed, len(a))
	}
}
