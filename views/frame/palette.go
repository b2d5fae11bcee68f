package frame

import (
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/usmnscope/usmnscope/dissect"
)

// SeverityStyles returns the colours for note, warn and error findings on a
// dark or light background, indexed by dissect.Severity, so every pane shows
// a severity in the same colour.
func SeverityStyles(dark bool) [3]lipgloss.Style {
	ld := lipgloss.LightDark(dark)
	return [3]lipgloss.Style{
		dissect.Note:  lipgloss.NewStyle().Foreground(ld(lipgloss.Color("#005fd7"), lipgloss.Color("#5fafff"))),
		dissect.Warn:  lipgloss.NewStyle().Foreground(ld(lipgloss.Color("#af5f00"), lipgloss.Color("#ffd75f"))),
		dissect.Error: lipgloss.NewStyle().Foreground(ld(lipgloss.Color("#d70000"), lipgloss.Color("#ff5f5f"))),
	}
}

// SeriesColours is how many distinct series colours SeriesStyles has.
const SeriesColours = 6

// SeriesStyles returns the I/O graph's series colours on a dark or light
// background (frame.Row.Colour 1 is the first): distinct hues, each also
// named by its series number, so meaning never rests on colour alone.
func SeriesStyles(dark bool) [SeriesColours]lipgloss.Style {
	ld := lipgloss.LightDark(dark)
	c := func(light, dark string) lipgloss.Style {
		return lipgloss.NewStyle().Foreground(ld(lipgloss.Color(light), lipgloss.Color(dark)))
	}
	return [SeriesColours]lipgloss.Style{
		c("#005fd7", "#5fafff"), // blue
		c("#af5f00", "#ffaf5f"), // orange
		c("#008700", "#87d75f"), // green
		c("#af00af", "#ff87ff"), // magenta
		c("#008787", "#5fd7d7"), // cyan
		c("#875f00", "#d7d75f"), // olive
	}
}

// WheelStep is how many rows one mouse-wheel notch moves a list.
const WheelStep = 3

// ListMouse applies a click or wheel message to a list pane whose first
// line is its title: a click on row y selects offset+y−1, a wheel notch
// moves the cursor by WheelStep. Other messages leave cursor as it is.
func ListMouse(msg tea.Msg, cursor, offset int) int {
	switch msg := msg.(type) {
	case tea.MouseClickMsg:
		if msg.Y >= 1 {
			return offset + msg.Y - 1
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			return cursor - WheelStep
		case tea.MouseWheelDown:
			return cursor + WheelStep
		}
	}
	return cursor
}
