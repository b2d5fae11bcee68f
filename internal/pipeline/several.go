package pipeline

import (
	"time"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/merge"
	"github.com/usmnscope/usmnscope/session"
)

// Capture is one of several captures a decode reads as one (Options.Several,
// docs/json.md "Several captures"): its file, the host and capture names
// its connections and records carry, and a --time-shift.
type Capture struct {
	Path          string
	Host, Capture string
	// Shift, when HasShift, is added to the capture's times instead of
	// the offset estimated from the connections it shares with the first
	// capture (--time-shift FILE=±D).
	Shift    time.Duration
	HasShift bool
}

// openSeveral opens the merged source of o.Several, each capture with
// opts: the plan's scan reads each capture twice (its connections, then
// the segments of those several captures have) before the decode reads
// them once more. units, when not nil, names the datagram sessions the
// captures share (merge.Units: a protocol side's, datagramUnits).
func openSeveral(o Options, opts capture.Options, units merge.Units) (*merge.Source, error) {
	ins := make([]merge.Input, len(o.Several))
	for i, c := range o.Several {
		if c.Path == "-" {
			return nil, errStdinSeveral
		}
		path := c.Path
		ins[i] = merge.Input{Host: c.Host, Capture: c.Capture, Shift: int64(c.Shift), HasShift: c.HasShift,
			Open: func() (capture.Source, error) { return capture.Open(path, opts) }}
	}
	plan, err := merge.NewPlanWith(ins, merge.Options{Units: units})
	if err != nil {
		return nil, err
	}
	return plan.Open()
}

// attachSeveral makes ix the index of the merged source ms: the captures'
// names, where each message of a merged connection was seen, the clocks.
func attachSeveral(ix *session.Index, ms *merge.Source) {
	plan := ms.Plan()
	os := make([]session.Origin, len(plan.Inputs))
	for i, in := range plan.Inputs {
		os[i] = session.Origin{Host: in.Host, Capture: in.Capture}
	}
	ix.SetOrigins(os)
	ix.SetSight(func(conn dissect.Conn, dir dissect.Dir, end int64) *session.Sight {
		f := capture.Flow(conn)
		if end == session.HostedSight {
			// A hosted record: the message the event just handed on
			// completed (its decoder gives no stream position).
			e, ok := ms.HostedEnd(f, dir)
			if !ok {
				f = capture.Flow{Client: f.Server, Server: f.Client}
				dir = 1 - dir
				if e, ok = ms.HostedEnd(f, dir); !ok {
					return nil
				}
			}
			end = e
		}
		sg := plan.Sight(f, dir, end)
		if sg == nil {
			return nil
		}
		s := &session.Sight{Seen: make([]session.Seen, len(sg.Seen)), OneWayNS: sg.OneWayNS, HasOneWay: sg.HasOneWay, MissingIn: sg.MissingIn}
		for k, e := range sg.Seen {
			s.Seen[k] = session.Seen{Capture: e.Capture, Host: e.Host, Frame: e.Frame, TimeNS: e.TimeNS}
			if e.TimeNS < sg.Seen[s.From].TimeNS {
				s.From = k
			}
		}
		if len(sg.Seen) > 0 {
			s.From = sg.Seen[s.From].Input
		}
		return s
	})
	cl := make([]session.Clock, len(plan.Clocks))
	for i, c := range plan.Clocks {
		cl[i] = session.Clock{Capture: c.Capture, Reference: c.Reference, OffsetNS: c.OffsetNS, DriftPPM: c.DriftPPM,
			ErrorNS: c.ErrorNS, Matched: c.Matched, Source: c.Source, Via: c.Via}
	}
	ix.SetClocks(cl)
}

// inputOf is the source's Input when it reads several captures.
type inputOf interface{ Input() int }
