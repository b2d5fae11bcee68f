package pipeline_test

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned"
)

// reused hands out events with their Data in one buffer that each Next
// call overwrites before it copies the next event's in, as a capture's
// frame buffer is reused for the next packet (capture.Event.Data); with
// fresh set each event keeps bytes of its own. Its Stats has no file
// size, so the feed is not read ahead (which copies every event).
type reused struct {
	evs   []capture.Event
	fresh bool
	at    int
	buf   [1 << 16]byte
	ev    capture.Event
}

func (r *reused) Next() (*capture.Event, error) {
	for i := range r.buf {
		r.buf[i] = 0xee
	}
	if r.at == len(r.evs) {
		return nil, io.EOF
	}
	r.ev = r.evs[r.at]
	r.at++
	if !r.fresh && r.ev.Data != nil {
		r.ev.Data = r.buf[:copy(r.buf[:], r.ev.Data)]
	}
	return &r.ev, nil
}

func (r *reused) Stats() capture.Stats { return capture.Stats{Packets: int64(r.at)} }
func (r *reused) Close() error         { return nil }

// kcpEvents reads a KCP fixture's events (on port 20000), each with a
// copy of its Data, and swaps each pair of data datagrams in a row of one
// direction, so that the later segments come first and are held.
func kcpEvents(t *testing.T, name string) []capture.Event {
	t.Helper()
	src, err := capture.Open(filepath.Join(rpcFixtures, name+".pcapng"), capture.Options{DatagramPorts: [4]uint16{20000}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var evs []capture.Event
	for {
		ev, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		e := *ev
		e.Data = bytes.Clone(ev.Data)
		evs = append(evs, e)
	}
	data := func(e capture.Event) bool {
		_, hs := ulinkrpc.ParseHandshake(e.Data)
		return e.Kind == capture.EventDatagram && !hs
	}
	for i := 0; i+1 < len(evs); i++ {
		if a, b := evs[i], evs[i+1]; data(a) && data(b) && a.FromServer == b.FromServer {
			evs[i], evs[i+1] = b, a
			i++
		}
	}
	return evs
}

// TestDatagramBufferReused: the records of KCP datagrams whose bytes are
// overwritten once the next event is read (a held out-of-order fragment,
// a partial message, a frame, pipeline.Record's copy) are those of the
// same datagrams each in bytes of its own.
func TestDatagramBufferReused(t *testing.T) {
	con := fixtureContracts(t)
	records := func(src capture.Source) []byte {
		rp := pipeline.NewRPC(rpc.Config{Contracts: con})
		if err := pipeline.FeedRPC(src, session.NewIndex(unturned.Default()), rp, nil); err != nil {
			t.Fatal(err)
		}
		return ndjson(rp.Records())
	}
	for _, name := range []string{"kcp-json", "kcp-memorypack"} {
		evs := kcpEvents(t, name)
		want := records(&reused{evs: evs, fresh: true})
		if len(want) == 0 {
			t.Fatalf("records(%s, fresh bytes) = none; want some", name)
		}
		for _, tc := range []struct {
			how string
			src func() capture.Source
		}{
			{"a reused buffer", func() capture.Source { return &reused{evs: evs} }},
			{"pipeline.Record of a reused buffer", func() capture.Source { return pipeline.Record(&reused{evs: evs}, 1<<30).Source() }},
		} {
			if got := records(tc.src()); !bytes.Equal(got, want) {
				t.Errorf("records(%s from %s) = %d bytes:\n%s\nwant those from fresh bytes, %d bytes:\n%s", name, tc.how, len(got), got, len(want), want)
			}
		}
	}
}
