package views

import (
	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/usmnscope/usmnscope/views/bits"
	"github.com/usmnscope/usmnscope/views/conns"
	"github.com/usmnscope/usmnscope/views/detail"
	"github.com/usmnscope/usmnscope/views/filterbar"
	"github.com/usmnscope/usmnscope/views/messages"
	"github.com/usmnscope/usmnscope/views/status"
	"github.com/usmnscope/usmnscope/views/tables"
)

// setStyles gives every pane the styles for a dark or light background.
// Colours are chosen with lipgloss.LightDark; meaning never rests on colour
// alone (selection is reversed, severity has a letter), so NO_COLOR, which
// the renderer honours by dropping colours, loses nothing.
func (m *Model) setStyles(dark bool) {
	m.dark = dark
	m.conns.Styles = conns.DefaultStyles(dark)
	m.msgs.Styles = messages.DefaultStyles(dark)
	m.detail.Styles = detail.DefaultStyles(dark)
	m.bits.Styles = bits.DefaultStyles(dark)
	m.tables.Styles = tables.DefaultStyles(dark)
	m.bar.Styles = filterbar.DefaultStyles(dark)
	m.status = status.DefaultStyles(dark)
	m.help.Styles = legendStyles(dark)
}

// legendStyles are the key legend's: bubbles' defaults drew it in greys of
// 1.9:1 to 3.2:1 against the background (issue 30); these keep WCAG's
// 4.5:1 for keys and descriptions on either theme (TestLegendContrast),
// the keys bold, the separators dimmer.
func legendStyles(dark bool) help.Styles {
	ld := lipgloss.LightDark(dark)
	key := lipgloss.NewStyle().Bold(true).Foreground(ld(lipgloss.Color("#1F1F1F"), lipgloss.Color("#E4E4E4")))
	desc := lipgloss.NewStyle().Foreground(ld(lipgloss.Color("#4E4E4E"), lipgloss.Color("#B4B4B4")))
	sep := lipgloss.NewStyle().Foreground(ld(lipgloss.Color("#767676"), lipgloss.Color("#8A8A8A")))
	return help.Styles{ShortKey: key, ShortDesc: desc, ShortSeparator: sep, Ellipsis: sep, FullKey: key, FullDesc: desc, FullSeparator: sep}
}
