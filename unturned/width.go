package unturned

import (
	"fmt"

	"github.com/usmnscope/usmnscope/dissect"
)

// Widened-enum inference (wire.md 4.2). A direction whose handshake was not
// captured does not say whether its enums are widened: its messages are
// held and each is decoded under both readings; the reading under which
// they decode more plausibly (ReadingScore) wins, vanilla on a tie.

// WidthInference tries both enum widths on one direction's held messages,
// one message at a time.
type WidthInference struct {
	dir   dissect.Dir
	state [2]State // the state of each reading: [0] vanilla, [1] widened
	score [2]int   // ReadingScore sums per reading
	total int      // messages added
}

// NewWidthInference starts an inference on direction dir, whose server IDs
// are written with idBits bits when idKnown.
func NewWidthInference(dir dissect.Dir, idBits int, idKnown bool) *WidthInference {
	return &WidthInference{dir: dir, state: [2]State{
		{Widened: false, IDBits: idBits, IDKnown: idKnown},
		{Widened: true, IDBits: idBits, IDKnown: idKnown}}}
}

// Add decodes msg under both readings (into d, the caller's scratch) and
// scores them. An S→C definition sets the ID bit count in force for the
// messages after it under the reading that decoded it (wire.md 4.3).
func (x *WidthInference) Add(p *Profile, msg []byte, d *Decoded) {
	x.total++
	for w := range x.state {
		*d = Decoded{Findings: d.Findings[:0]}
		Decode(p, x.dir, x.state[w], msg, nil, d)
		sc := ReadingScore(d)
		if sc == 0 {
			continue
		}
		x.score[w] += sc
		if x.dir == dissect.S2C && d.Kind == KindInvokeMessageListener && d.Invoke.HasDefinition {
			x.state[w].IDBits, x.state[w].IDKnown = d.Invoke.IDBits, true
		}
	}
}

// Verdict is the reading with the higher score, vanilla on a tie, and its
// confidence (decideConfidence).
func (x *WidthInference) Verdict() (widened bool, confidence float64) {
	return decideConfidence(x.score[0], x.score[1])
}

// Finding describes the verdict with its confidence.
func (x *WidthInference) Finding() dissect.Finding {
	widened, confidence := x.Verdict()
	reading := "vanilla"
	if widened {
		reading = "widened"
	}
	return dissect.Finding{
		Severity: dissect.Note,
		Group:    dissect.Inference,
		Text: fmt.Sprintf("%s enum width inferred %s (handshake not captured) from %d messages: plausibility %d widened, %d vanilla; confidence %.2f",
			x.dir, reading, x.total, x.score[1], x.score[0], confidence),
		Bit: -1,
	}
}

// ReadingScore rates how plausible a decoding is, in half points: 2 for a
// known message that decoded fully without warnings, 1 for one whose bits
// are only partly decoded (a long vanilla body shown as undecoded bits), 0
// for an error, a warning or an unknown enum value. A widened message read
// vanilla usually lands on a real but long-bodied message (ReadyToConnect
// for 17 & 0xF), so full decodes must outweigh partial ones.
func ReadingScore(d *Decoded) int {
	if d.Kind == KindUnknown {
		return 0
	}
	score := 2
	for _, f := range d.Findings {
		if f.Severity >= dissect.Warn {
			return 0
		}
		if f.Group == dissect.Undecoded {
			score = 1
		}
	}
	return score
}

// decideConfidence picks the reading with the higher score, vanilla on a
// tie, and its confidence: its share of both scores (0.5 on a tie,
// including when nothing decoded).
func decideConfidence(vanilla, widened int) (bool, float64) {
	total := vanilla + widened
	if total == 0 {
		return false, 0.5
	}
	if widened > vanilla {
		return true, float64(widened) / float64(total)
	}
	return false, float64(vanilla) / float64(total)
}
