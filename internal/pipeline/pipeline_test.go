package pipeline_test

import (
	"errors"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
)

// events is a capture.Source over a fixed list of events, then err.
type events struct {
	list []capture.Event
	err  error
}

func (e *events) Next() (*capture.Event, error) {
	if len(e.list) == 0 {
		return nil, e.err
	}
	ev := e.list[0]
	e.list = e.list[1:]
	return &ev, nil
}
func (e *events) Stats() capture.Stats { return capture.Stats{} }
func (e *events) Close() error         { return nil }

var flow = capture.Flow{Client: netip.MustParseAddrPort("10.0.0.2:50000"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}

// TestFeed maps every kind of event: the open rule, both directions' data,
// flow and capture notes with their levels, and the close.
func TestFeed(t *testing.T) {
	t0 := time.Unix(100, 0)
	src := &events{err: io.EOF, list: []capture.Event{
		{Kind: capture.EventOpen, Flow: flow, Rule: capture.RuleSYN, Time: t0, Frame: 1},
		{Kind: capture.EventData, Flow: flow, Data: []byte{0, 1, 0x02}, Time: t0, Frame: 2, Offset: -1},
		{Kind: capture.EventData, Flow: flow, FromServer: true, Data: []byte{0, 1, 0x05}, Time: t0, Frame: 3, Offset: -1},
		{Kind: capture.EventNote, Flow: flow, Level: capture.LevelWarn, Text: "flow note"},
		{Kind: capture.EventNote, Level: capture.LevelError, Text: "capture note"},
		{Kind: capture.EventClose, Flow: flow, Time: t0, Frame: 4},
	}}
	ix := session.NewIndex(nil)
	if err := pipeline.Feed(src, ix, nil); err != nil {
		t.Fatalf("Feed = %v; want nil at EOF", err)
	}
	if ix.Len() != 2 {
		t.Fatalf("Len() = %d; want 2", ix.Len())
	}
	if m := ix.Message(2); m.Dir != dissect.S2C || m.Frame != 3 {
		t.Errorf("message 2 = %v frame %d; want s2c from frame 3", m.Dir, m.Frame)
	}
	cs := ix.Connections()
	if len(cs) != 1 || cs[0].Rule != session.RuleSYN {
		t.Fatalf("Connections() = %+v; want one opened by SYN", cs)
	}
	if fs := cs[0].Findings; len(fs) == 0 || fs[0].Text != "flow note" || fs[0].Group != dissect.Sequence || fs[0].Severity != dissect.Warn {
		t.Errorf("connection findings = %+v; want the flow note as warn/sequence", fs)
	}
	if fs := ix.Findings(); len(fs) != 1 || fs[0].Group != dissect.Protocol || fs[0].Severity != dissect.Error {
		t.Errorf("capture findings = %+v; want the capture note as error/protocol", fs)
	}
}

// TestFeedError keeps what was decoded before a read error and returns it.
func TestFeedError(t *testing.T) {
	broken := errors.New("disk on fire")
	src := &events{err: broken, list: []capture.Event{
		{Kind: capture.EventData, Flow: flow, Data: []byte{0, 1, 0x02}, Frame: 1, Offset: -1},
	}}
	ix := session.NewIndex(nil)
	if err := pipeline.Feed(src, ix, nil); !errors.Is(err, broken) || ix.Len() != 1 {
		t.Errorf("Feed = %v with %d messages; want the read error and 1 message", err, ix.Len())
	}
}

// panics is a source whose Next panics: a bug in capture code.
type panics struct{ events }

func (*panics) Next() (*capture.Event, error) { panic("boom") }

// TestFeedPanic turns a panic into an error and a capture finding.
func TestFeedPanic(t *testing.T) {
	ix := session.NewIndex(nil)
	err := pipeline.Feed(&panics{}, ix, nil)
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("Feed(panicking source) = %v; want an error naming the panic", err)
	}
	if fs := ix.Findings(); len(fs) != 1 || !strings.Contains(fs[0].Text, "usmnscope bug") {
		t.Errorf("findings = %+v; want one naming the bug", fs)
	}
}

// TestRule maps every capture rule, and one capture may add later.
func TestRule(t *testing.T) {
	for _, tc := range []struct {
		in   capture.ServerRule
		want session.Rule
	}{
		{capture.RuleSYN, session.RuleSYN},
		{capture.RulePort, session.RulePort},
		{capture.RuleLowerPort, session.RuleLowerPort},
		{capture.ServerRule(200), session.RuleUnknown},
	} {
		if got := pipeline.Rule(tc.in); got != tc.want {
			t.Errorf("Rule(%v) = %v; want %v", tc.in, got, tc.want)
		}
	}
	if got := pipeline.Severity(capture.Level(99)); got != dissect.Error {
		t.Errorf("Severity(99) = %v; want error", got)
	}
}
