package infer_test

import (
	"path/filepath"
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
	utfeed "github.com/usmnscope/usmnscope/unturned/feed"
	"github.com/usmnscope/usmnscope/unturned/infer"
)

// TestScoreOfSkipsULinkRPC (issue 15): ULinkRPC records the index hosts
// are not Unturned messages: a capture of only ULinkRPC scores no message
// and none flagged, whatever its records' findings.
func TestScoreOfSkipsULinkRPC(t *testing.T) {
	p := unturned.Default()
	rp := pipeline.NewRPC(rpc.Config{})
	src, err := capture.Open(filepath.Join("..", "..", "fixtures", "ulinkrpc", "tcp-json.pcapng"), capture.Options{TransportPort: p.TransportPort})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ix := session.NewIndex(p)
	if err := pipeline.FeedRPC(src, ix, rp, nil); err != nil {
		t.Fatal(err)
	}
	if ix.Len() == 0 {
		t.Fatal("no ULinkRPC record: the test scores nothing")
	}
	if s := infer.ScoreOf(utfeed.Decoded(ix)); s.Messages != 0 || s.Flagged != 0 || s.Bad != 0 {
		t.Errorf("ScoreOf(%d ULinkRPC records) = %+v; want no message, none flagged, nothing bad", ix.Len(), s)
	}
}
