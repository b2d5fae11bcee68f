package pipeline

import (
	"errors"
	"io"

	"github.com/usmnscope/usmnscope/capture"
)

// Recording is a capture's events held in memory, so that a capture can be
// decoded again under other profiles (profile inference) without reading
// it again: standard input cannot be.
type Recording struct {
	Events []capture.Event
	Stats  capture.Stats
	// Truncated says the recording stopped at its byte bound: what follows
	// in the capture was not recorded.
	Truncated bool
	Err       error // the read error that ended the capture early, if any
}

// Record reads src to its end, or until maxBytes of event data are held,
// copying each event's data and datagram (capture reuses its buffers).
// Notes are kept; file offsets are dropped, since the copies are not the
// file.
func Record(src capture.Source, maxBytes int) *Recording {
	rec := &Recording{}
	held := 0
	for {
		ev, err := src.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				rec.Err = err
			}
			break
		}
		if ev.Kind == capture.EventData {
			if held+len(ev.Data) > maxBytes {
				rec.Truncated = true
				break
			}
			held += len(ev.Data)
		}
		if ev.Kind == capture.EventData || ev.Kind == capture.EventDatagram {
			// Both alias capture's buffers (Event.Data). Only stream
			// data counts against maxBytes, as it always has.
			ev.Data = append([]byte(nil), ev.Data...)
		}
		ev.Offset = -1
		rec.Events = append(rec.Events, *ev)
	}
	rec.Stats = src.Stats()
	return rec
}

// Source replays the recording from its start.
func (r *Recording) Source() capture.Source { return &replay{r: r} }

type replay struct {
	r  *Recording
	i  int
	ev capture.Event // the event Next handed out
}

var _ capture.Source = (*replay)(nil)

func (s *replay) Next() (*capture.Event, error) {
	if s.i >= len(s.r.Events) {
		return nil, io.EOF
	}
	s.i++
	// A copy: the caller may change it, and the recording replays again.
	s.ev = s.r.Events[s.i-1]
	return &s.ev, nil
}

func (s *replay) Stats() capture.Stats { return s.r.Stats }
func (s *replay) Close() error         { return nil }
