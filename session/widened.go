package session

import (
	"fmt"
	"strings"

	"github.com/usmnscope/usmnscope/dissect"
)

// Wording picks one of the two ways the outputs have always said which
// directions of a connection read their message enums widened (wire.md
// 4.2). Each output keeps its text, so both live here, on one loop.
type Wording uint8

const (
	// Brief is the TUI connection list's: "wide:c2s,s2c", with "?" when
	// the widening was inferred, or "vanilla".
	Brief Wording = iota
	// Full is `tables`': "widened c2s from #3, s2c from #4", with
	// " (inferred)" when inferred, or "" when no direction is widened.
	Full
)

// WidenedText says which directions of the connection are widened, in w's
// wording.
func (ci ConnInfo) WidenedText(w Wording) string {
	var parts []string
	for _, d := range []dissect.Dir{dissect.C2S, dissect.S2C} {
		switch {
		case !ci.Widened[d]:
		case w == Full && ci.WidenedAt[d] == 0:
			// Widened by the handshake, but no message of the direction
			// came since (a capture, or a tables --at cut, that ends
			// there): wire.md 4.2 widens its next one.
			parts = append(parts, d.String()+" from its next message")
		case w == Full:
			parts = append(parts, fmt.Sprintf("%s from #%d", d, ci.WidenedAt[d]))
		default:
			parts = append(parts, d.String())
		}
	}
	switch {
	case len(parts) == 0 && w == Full:
		return ""
	case len(parts) == 0:
		return "vanilla"
	case w == Full && ci.Inferred:
		return "widened " + strings.Join(parts, ", ") + " (inferred)"
	case w == Full:
		return "widened " + strings.Join(parts, ", ")
	case ci.Inferred:
		return "wide:" + strings.Join(parts, ",") + "?"
	}
	return "wide:" + strings.Join(parts, ",")
}
