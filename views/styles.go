package views

import (
	"charm.land/bubbles/v2/help"

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
	m.help.Styles = help.DefaultStyles(dark)
}
