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
