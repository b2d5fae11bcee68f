package status

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/views/frame"
)

// Info is what the bar shows.
type Info struct {
	Name        string
	Profile     string
	Messages    int
	Conns       int
	Worst       dissect.Severity
	HasFinding  bool
	Loading     bool
	Progress    float64 // 0..1, or < 0 when unknown
	Live        bool
	PacketsPerS float64
	Drops       uint64
	Paused      bool
	Following   bool
	Err         string // the capture stopped with this error
	Note        string // feedback on the last key (copied, written, paused…)
}

// Styles of the bar.
type Styles struct{ Bar lipgloss.Style }

// DefaultStyles returns styles for a dark or light background.
func DefaultStyles(dark bool) Styles {
	return Styles{Bar: lipgloss.NewStyle().Reverse(true)}
}

// View renders the bar at width w.
func View(s Styles, in Info, w int) string {
	// Live counters come first: at 80 columns the tail is what gets cut.
	parts := []string{termsafe.Escape(in.Name)}
	if in.Live {
		parts = append(parts, fmt.Sprintf("%.0f pkt/s", in.PacketsPerS), fmt.Sprintf("%d drops", in.Drops))
		switch {
		case in.Paused:
			parts = append(parts, "PAUSED")
		case in.Following:
			parts = append(parts, "following")
		}
	}
	if in.Paused && !in.Live {
		parts = append(parts, "PAUSED")
	}
	if in.Note != "" {
		// The answer to the key just pressed comes before the totals.
		parts = append(parts, termsafe.Escaped(in.Note))
	}
	profile := len(parts)
	parts = append(parts, "profile "+termsafe.Escape(in.Profile), dissect.Count(in.Messages, "msg"), dissect.Count(in.Conns, "conn"))
	if in.HasFinding {
		parts = append(parts, "worst "+in.Worst.String())
	} else {
		parts = append(parts, "clean")
	}
	if in.Loading && !in.Live {
		if in.Progress >= 0 {
			parts = append(parts, fmt.Sprintf("loading %d%%", int(in.Progress*100)))
		} else {
			parts = append(parts, "loading…")
		}
	}
	if in.Err != "" {
		parts = append(parts, "error: "+termsafe.Escape(in.Err))
	}
	return s.Bar.Render(frame.Line(fit(parts, profile, w), w))
}

// fit joins the parts into a bar of at most w columns where it can: the
// tail (loading N%, an error) matters most while it is there, so what is
// dropped first is the profile's name, then the connection count, then the
// capture's name is shortened (issue 30: at 80 columns "loading N%" was
// cut off).
func fit(parts []string, profile, w int) string {
	line := func() string { return " " + strings.Join(parts, " │ ") }
	// parts[profile] is "profile NAME", then the message and connection
	// counts: drop the profile, after which the connections sit at
	// profile+1, then those.
	for _, i := range []int{profile, profile + 1} {
		if lipgloss.Width(line()) > w && i < len(parts) {
			parts = append(parts[:i:i], parts[i+1:]...)
		}
	}
	if over := lipgloss.Width(line()) - w; over > 0 && len(parts) > 1 {
		name := []rune(parts[0])
		if keep := len(name) - over - 1; keep >= 4 {
			parts[0] = string(name[:keep]) + "…"
		}
	}
	return line()
}
