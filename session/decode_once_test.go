package session_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/scenario"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestStreamDecodesOnce checks that a streaming Index hands every message
// out with the decoding its commit made (issue 18: each message decoded
// once), also those that wait behind an unanswered asker (a ping request
// or a RequestServerListenerId, held so that it prints its pair), which
// were decoded again when handed out: a quarter of a scale capture.
func TestStreamDecodesOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scale.pcapng")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (scenario.Scale{Messages: 20000, Conns: 16, Seed: 7}).Generate(f, scenario.PCAPNG); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, fixture := range []string{path, "../fixtures/captures/pings.pcapng", "../fixtures/captures/usmn-basic.pcapng"} {
		for _, spans := range []bool{true, false} {
			p := unturned.Default()
			src, err := capture.Open(fixture, capture.Options{TransportPort: p.TransportPort, QueryPort: p.QueryPort})
			if err != nil {
				t.Fatal(err)
			}
			c := session.NewIndex(p)
			again, asked := 0, 0
			c.SetStream(session.Stream{Spans: spans, Settled: func(n int) error {
				if !c.Prepared(n) {
					again++
				}
				if c.Message(n).Pair > n {
					asked++
				}
				return nil
			}})
			if err := pipeline.Feed(src, c, nil); err != nil {
				t.Fatal(err)
			}
			src.Close()
			if again != 0 || asked == 0 && fixture != "../fixtures/captures/usmn-basic.pcapng" {
				t.Errorf("%s (spans %v): %d of %d messages handed out decoded again; %d askers", fixture, spans, again, c.Len(), asked)
			}
		}
	}
}
