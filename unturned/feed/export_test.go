package feed

import (
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/infer"
)

// ScoreHeads is Score tallied from every head, whatever the connections.
func ScoreHeads(dc *session.Index) infer.Hint { return score(dc) }

// SetScoreSplit sets the index size from which Score tallies in parts, and
// returns the one it replaced (a test's).
func SetScoreSplit(n int) int { old := scoreSplit; scoreSplit = n; return old }
