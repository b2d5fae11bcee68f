package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/capture"
)

// script is a source that yields its events in order, reusing one Data
// buffer (as a real source may: Data is valid until the next Next), then
// its errors, then io.EOF-like end.
type script struct {
	evs     []capture.Event
	errs    map[int]error // an error returned before event i (once)
	buf     []byte
	at      int
	claimed []int // events read before each probe's claim was applied
	applied *int  // how many events the decoder applied
	end     error
}

func (s *script) Next() (*capture.Event, error) {
	if err, ok := s.errs[s.at]; ok {
		delete(s.errs, s.at)
		return nil, err
	}
	if s.at == len(s.evs) {
		return nil, s.end
	}
	ev := s.evs[s.at]
	if s.at > 0 && s.evs[s.at-1].Probe {
		// the reader must not read past a probe before it is applied
		s.claimed = append(s.claimed, *s.applied-s.at)
	}
	s.buf = append(s.buf[:0], ev.Data...) // one buffer, overwritten
	ev.Data = s.buf
	s.at++
	return &ev, nil
}

func (s *script) Stats() capture.Stats { return capture.Stats{Packets: int64(s.at), Size: 1} }
func (s *script) Close() error         { return nil }

// probed syncs on the script's probes, as a side's MayClaim on its
// handshakes.
func probed(ev *capture.Event) bool { return ev.Probe }

func aheadEventsFor(n int, probeEvery int) []capture.Event {
	evs := make([]capture.Event, n)
	paris, _ := time.LoadLocation("Europe/Paris")
	if paris == nil {
		paris = time.FixedZone("CET", 3600)
	}
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := range evs {
		// Flows whose ports collide in the reader's table (every 64th),
		// and some the same but for their addresses.
		c := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(i % 3), 1}), uint16(40000+i%70))
		s := netip.AddrPortFrom(netip.MustParseAddr("2001:db8::1"), 27015+uint16(i%130))
		evs[i] = capture.Event{Kind: capture.EventData, Frame: i + 1, Flow: capture.Flow{Client: c, Server: s},
			Data: bytes.Repeat([]byte{byte(i)}, 1+i%3000), Time: t0.Add(time.Duration(i) * 1777 * time.Microsecond),
			Offset: int64(i)*100 - 1, ID: uint32(i % 70), FromServer: i%2 == 1, Rule: capture.ServerRule(i % 3)}
		// The events a batch keeps whole (aheadOdd), and those at the
		// edges of the compact one.
		switch i % 97 {
		case 5:
			evs[i].Kind, evs[i].Level, evs[i].Text, evs[i].Data = capture.EventNote, capture.Level(2), "a note", nil
		case 11:
			evs[i].Time = evs[i].Time.In(paris)
		case 13:
			evs[i].Time = time.Time{}
		case 17:
			evs[i].Frame = -1
		case 19:
			evs[i].Frame = math.MaxUint32 + 1
		case 23:
			evs[i].Kind, evs[i].Lost, evs[i].Data = capture.EventGap, math.MaxUint32, nil
		case 29:
			evs[i].Kind, evs[i].Lost, evs[i].Data = capture.EventGap, math.MaxUint32+7, nil
		case 31:
			evs[i].Time = time.Unix(-5, 999999999).UTC()
		case 37:
			evs[i].Flow = capture.Flow{}
		}
		if probeEvery > 0 && i%probeEvery == probeEvery-1 {
			evs[i].Kind, evs[i].Probe = capture.EventDatagram, true
		}
	}
	return evs
}

// sameEvent reports how got differs from want, "" for not at all.
func sameEvent(got, want *capture.Event) string {
	g, w := *got, *want
	if !bytes.Equal(g.Data, w.Data) {
		return fmt.Sprintf("%d bytes of Data; want %d", len(g.Data), len(w.Data))
	}
	g.Data, w.Data = nil, nil
	if g.Time != w.Time || !reflect.DeepEqual(g, w) {
		return fmt.Sprintf("%+v; want %+v", g, w)
	}
	return ""
}

// TestAheadSameEvents: the decoder sees every event, its bytes and the
// errors in the source's order, whatever the batching.
func TestAheadSameEvents(t *testing.T) {
	quiet := capture.ErrQuiet
	end := errors.New("end of input")
	for _, tc := range []struct {
		n, probe int
		errs     map[int]error
	}{
		{0, 0, nil},
		{1, 0, nil},
		{aheadEvents, 0, nil},
		{aheadEvents*5 + 7, 0, nil},
		{1000, 0, map[int]error{300: quiet, 301: quiet, 999: quiet}},
		{1000, 17, nil},
		{700, 1, map[int]error{5: quiet}},
	} {
		t.Run(fmt.Sprintf("n=%d/probe=%d/errs=%d", tc.n, tc.probe, len(tc.errs)), func(t *testing.T) {
			want := aheadEventsFor(tc.n, tc.probe)
			applied := 0
			errs := map[int]error{}
			for k, v := range tc.errs {
				errs[k] = v
			}
			src := &script{evs: want, errs: errs, applied: &applied, end: end}
			a := readAhead(src, probed)
			defer a.close()
			got, quiets := 0, 0
			for {
				ev, err := a.next()
				if errors.Is(err, capture.ErrQuiet) {
					quiets++
					continue
				}
				if err != nil {
					if err != end {
						t.Fatalf("next() error = %v; want %v", err, end)
					}
					break
				}
				if got >= len(want) {
					t.Fatalf("next() gave event %d of %d", got+1, len(want))
				}
				if d := sameEvent(ev, &want[got]); d != "" {
					t.Fatalf("event %d: %s", got, d)
				}
				got++
				applied = got
			}
			if got != len(want) || quiets != len(tc.errs) {
				t.Errorf("events, quiet errors = %d, %d; want %d, %d", got, quiets, len(want), len(tc.errs))
			}
			for i, d := range src.claimed {
				if d < 0 {
					t.Errorf("probe %d: the reader read on %d events before the decoder applied it", i, -d)
				}
			}
		})
	}
}

// TestAheadCloseEarly: a decoder that stops at once (a cut, an error)
// stops the reader, which then no longer touches the source.
func TestAheadCloseEarly(t *testing.T) {
	applied := 0
	src := &script{evs: aheadEventsFor(10*aheadEvents, 0), applied: &applied, end: errors.New("end")}
	a := readAhead(src, probed)
	if _, err := a.next(); err != nil {
		t.Fatal(err)
	}
	a.close()
	at := src.at
	if at > (aheadBatches+2)*aheadEvents {
		t.Errorf("reader read %d events ahead; want at most %d", at, (aheadBatches+2)*aheadEvents)
	}
	a.close() // twice is harmless
	if src.at != at {
		t.Errorf("source read after close: %d -> %d", at, src.at)
	}
}

// TestAheadStats: stats are the source's as of the batch the decoder reads.
func TestAheadStats(t *testing.T) {
	applied := 0
	src := &script{evs: aheadEventsFor(3*aheadEvents, 0), applied: &applied, end: errors.New("end")}
	a := readAhead(src, probed)
	defer a.close()
	for i := 0; ; i++ {
		if _, err := a.next(); err != nil {
			break
		}
		if p := a.stats().Packets; p < int64(i+1) {
			t.Fatalf("after event %d stats().Packets = %d; want >= %d", i+1, p, i+1)
		}
	}
}

// TestBatchSize: a file's batches are a 128th of it, between a quarter of
// aheadBytes and aheadBytes, with an event per 512 bytes; a source of
// unknown size gets the smallest.
func TestBatchSize(t *testing.T) {
	for _, tc := range []struct {
		size          int64
		events, bytes int
	}{
		{-1, 512, 256 << 10},
		{0, 512, 256 << 10},
		{1000, 512, 256 << 10},
		{32 << 20, 512, 256 << 10},
		{64 << 20, 1024, 512 << 10},
		{128 << 20, 2048, 1 << 20},
		{4 << 30, 2048, 1 << 20},
	} {
		if e, b := batchSize(tc.size); e != tc.events || b != tc.bytes {
			t.Errorf("batchSize(%d) = %d events, %d bytes; want %d, %d", tc.size, e, b, tc.events, tc.bytes)
		}
	}
}
