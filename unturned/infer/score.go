package infer

import (
	"strings"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// Score is how badly a profile decodes a capture: 0 is clean.
type Score struct {
	Bad      int // the weighted sum below
	Messages int // messages decoded
	Flagged  int // messages with a warning or an error, Unknown ones included
	Broken   int // messages with an error, or Unknown: not a clean decode
}

// Weights of what a wrong constant leaves behind.
const (
	wError   = 8
	wWarn    = 4
	wNote    = 1
	wUnknown = 6
	wTrailer = 4 // an unknown trailer: a marker the profile does not know
	// Unresolved references are not counted: a capture that starts
	// mid-connection has them whatever the profile, and a misread ID that
	// happens to resolve must not look better.
	wUnresolved = 0
)

// score rates a decoded index.
func score(ix Decoded) Score {
	var s Score
	for n := 1; n <= ix.Len(); n++ {
		m, ok := ix.Message(n)
		if ok && m.Other {
			continue // ULinkRPC says nothing of the Unturned profile
		}
		s.Messages++
		if !ok {
			continue
		}
		flagged, broken := false, m.Kind == unturned.KindUnknown
		if broken {
			s.Bad += wUnknown
			flagged = true
		}
		for _, f := range m.Findings {
			s.Bad += weight(f)
			flagged = flagged || f.Severity >= dissect.Warn
			broken = broken || f.Severity >= dissect.Error
		}
		if broken {
			s.Broken++
		}
		if m.Unresolved {
			s.Bad += wUnresolved
		}
		if flagged {
			s.Flagged++
		}
	}
	for _, f := range ix.Findings() {
		s.Bad += weight(f)
	}
	return s
}

func weight(f dissect.Finding) int {
	switch {
	case f.Severity >= dissect.Error:
		return wError
	case f.Severity == dissect.Warn:
		return wWarn
	case strings.Contains(f.Text, "unknown trailer"):
		return wTrailer
	}
	return wNote
}

// ScoreOf scores a decoded index (tests, the CLI's hint).
func ScoreOf(ix Decoded) Score { return score(ix) }
