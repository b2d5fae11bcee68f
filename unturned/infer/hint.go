package infer

import (
	"strings"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// Hint is what the capture-level profile hint (wire.md 4.6 "The profile
// itself") judges the active profile's decode by: the Unturned messages,
// those flagged (a warning or an error, or Unknown: Score's Flagged), and
// whether a workshop message carries an unknown trailer (a marker the
// profile does not know).
type Hint struct {
	Messages, Flagged int
	Trailer           bool
}

// Bad says whether a decode looks like the wrong profile: a marker the
// profile does not know, or a tenth of the messages flagged. Only then does
// the hint run the search (RunBounded).
func (h Hint) Bad() bool {
	if h.Messages == 0 {
		return false
	}
	return h.Flagged*10 >= h.Messages || h.Trailer
}

// Tally gathers a Hint from the messages of a decode as they are handed
// out (a streaming index keeps none to score at the end, issue 18): each
// from its index record (Head: kind and worst severity), and a workshop
// message's findings from the message. It equals the tally of every Head
// of the same capture decoded in full (unturned/feed's Score), except that
// with payload schemas a reference resolved only after session's
// late-resolution bound is judged as it was handed out, undecoded.
type Tally struct {
	h   Hint
	rpc int // ULinkRPC messages: not Unturned ones
}

// Head tallies message h.N of d.
func (t *Tally) Head(d Decoded, h *Head) {
	if h.Kind == unturned.KindUnknown || h.Flagged {
		if h.Other {
			// ULinkRPC (whose Kind is Unknown) says nothing of the
			// Unturned profile.
			t.rpc++
			return
		}
		t.h.Flagged++
	}
	if !t.h.Trailer && (h.Kind == unturned.KindGetWorkshopFiles || h.Kind == unturned.KindDownloadWorkshopFiles) {
		if m, ok := d.Message(h.N); ok {
			t.h.Trailer = WorkshopTrailer(m)
		}
	}
}

// Add adds the tally of other messages of the same decode (a part of it
// tallied apart).
func (t *Tally) Add(o *Tally) {
	t.h.Flagged += o.h.Flagged
	t.h.Trailer = t.h.Trailer || o.h.Trailer
	t.rpc += o.rpc
}

// Score is the tally after the feed.
func (t *Tally) Score(d Decoded) Hint {
	h := t.h
	h.Messages = d.Len() - t.rpc
	return h
}

// WorkshopTrailer reports whether m is a workshop message with an unknown
// trailer note (wire.md 6: a trailer that is not this profile's marker).
func WorkshopTrailer(m Message) bool {
	if m.Kind != unturned.KindGetWorkshopFiles && m.Kind != unturned.KindDownloadWorkshopFiles {
		return false
	}
	for _, f := range m.Findings {
		if f.Severity == dissect.Note && strings.Contains(f.Text, "unknown trailer") {
			return true
		}
	}
	return false
}
