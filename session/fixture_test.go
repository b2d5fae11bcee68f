package session_test

import (
	"os"
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

func init() { session.ReadFixture = readFixture }

// readFixture decodes path with the default profile through the pipeline;
// with store, messages lying whole in the file are kept by their offset.
func readFixture(t testing.TB, path string, store bool) *session.Index {
	t.Helper()
	p := unturned.Default()
	src, err := capture.Open(path, capture.Options{TransportPort: p.TransportPort, QueryPort: p.QueryPort})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	c := session.NewIndex(p)
	if store {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		c.SetStore(f)
	}
	if err := pipeline.Feed(src, c, nil); err != nil {
		t.Logf("%s: %v (comparing what was read)", path, err)
	}
	return c
}

// TestSettledIsFinal: with payload schemas, a message is Settled only once
// nothing later in the capture can change it; a reference waiting for its
// listener ID is held until the definition arrives (issue 14 point 2), so
// dump, which prints each message once as it settles, prints what the whole
// capture shows. Each message's summary when it first settled must equal
// its summary at the end.
func TestSettledIsFinal(t *testing.T) {
	p := unturned.Default()
	src, err := capture.Open(session.SchemaFixture, capture.Options{TransportPort: p.TransportPort, QueryPort: p.QueryPort})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	c := session.NewIndex(p)
	c.SetSchemas(session.FixtureSchemas(t))
	first := map[int]string{}
	seen := 0
	if err := pipeline.Feed(src, c, func(capture.Stats) {
		for s := c.Settled(); seen < s; {
			seen++
			first[seen] = c.Message(seen).Summary
		}
	}); err != nil {
		t.Fatal(err)
	}
	for s := c.Settled(); seen < s; {
		seen++
		first[seen] = c.Message(seen).Summary
	}
	late := 0
	for n := 1; n <= c.Len(); n++ {
		m := c.Message(n)
		if got := first[n]; got != m.Summary {
			t.Errorf("message %d settled as %q; at the end it is %q", n, got, m.Summary)
		}
		if m.Listener != nil && !m.Listener.Resolved && m.PayloadMessage != "" {
			late++
		}
	}
	if late == 0 {
		t.Error("no reference resolved later in the schema fixture: the test checks nothing")
	}
}

// TestStreamSettledIsFinal is TestSettledIsFinal for a streaming Index
// (issue 18): with payload schemas a reference waiting for its listener ID
// is held in the stream until the definition arrives, so each message is
// handed out as the full Index shows it at the end, late-resolved
// payloads decoded.
func TestStreamSettledIsFinal(t *testing.T) {
	p := unturned.Default()
	feed := func(c *session.Index) {
		src, err := capture.Open(session.SchemaFixture, capture.Options{TransportPort: p.TransportPort, QueryPort: p.QueryPort})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		if err := pipeline.Feed(src, c, nil); err != nil {
			t.Fatal(err)
		}
	}
	full := session.NewIndex(p)
	full.SetSchemas(session.FixtureSchemas(t))
	feed(full)
	s := session.NewIndex(p)
	s.SetSchemas(session.FixtureSchemas(t))
	var got []string
	late := 0
	s.SetStream(session.Stream{Spans: true, Settled: func(n int) error {
		if n != len(got)+1 {
			t.Fatalf("handed out message %d after %d", n, len(got))
		}
		m := s.Detail(n)
		got = append(got, m.Summary)
		if m.Listener != nil && !m.Listener.Resolved && m.PayloadMessage != "" {
			late++
		}
		return nil
	}})
	feed(s)
	if len(got) != full.Len() {
		t.Fatalf("stream handed out %d messages; the full Index has %d", len(got), full.Len())
	}
	for n := 1; n <= full.Len(); n++ {
		if want := full.Message(n).Summary; got[n-1] != want {
			t.Errorf("message %d streamed as %q; the full Index shows %q", n, got[n-1], want)
		}
	}
	if late == 0 {
		t.Error("no reference resolved later was streamed decoded: the test checks nothing")
	}
}
