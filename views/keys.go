package views

import "charm.land/bubbles/v2/key"

// KeyMap holds the global bindings, matched before the focused pane's.
type KeyMap struct {
	Quit, NextPane, PrevPane, Filter, Goto, Help, Tables, Follow, Pause, Clear key.Binding
	Expert, FollowConn, Graph, Copy, Write, Text                               key.Binding
	// Stats opens the statistics pane (issue 26).
	Stats key.Binding
	// Pair goes from the selected message to its partner (outputs.md
	// "Pairing"), in the message list, where Enter has no other use.
	Pair key.Binding
	// The time column and marks (timemarks.go): TimeFormat and TimeRef
	// everywhere, the marks in the message list.
	TimeFormat, TimeRef, Mark, NextMark, PrevMark, MarkedOnly key.Binding
	// Find (find.go): ask for a text or hex bytes, find next, previous.
	Find, FindNext, FindPrev key.Binding
}

// DefaultKeyMap returns bindings familiar from less, vim and Wireshark.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Quit:       key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		NextPane:   key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevPane:   key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Filter:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Goto:       key.NewBinding(key.WithKeys(":"), key.WithHelp(":N", "go to message")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Tables:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "tables/bits")),
		Follow:     key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow tail")),
		Pause:      key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "pause")),
		Clear:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filters")),
		Expert:     key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "expert info")),
		FollowConn: key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "follow connection")),
		Graph:      key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "I/O graph")),
		Copy:       key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy hex/value")),
		Write:      key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "write pcapng")),
		Text:       key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "view full text")),
		Pair:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "go to pair")),
		TimeFormat: key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "time: since first, UTC, local, delta, delta on connection")),
		TimeRef:    key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "set or clear the time reference (the selected message)")),
		Mark:       key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "mark or unmark the selected message")),
		NextMark:   key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next marked message")),
		PrevMark:   key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous marked message")),
		MarkedOnly: key.NewBinding(key.WithKeys("M"), key.WithHelp("M", "list marked messages only, or all again")),
		Stats:      key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "statistics")),
		Find:       key.NewBinding(key.WithKeys("ctrl+f"), key.WithHelp("ctrl+f", "find text or hex bytes in the focused pane (list, tree, bytes)")),
		FindNext:   key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "find next")),
		FindPrev:   key.NewBinding(key.WithKeys("ctrl+b"), key.WithHelp("ctrl+b", "find previous")),
	}
}

func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.NextPane, k.Filter, k.Expert, k.Help, k.Quit}
}

func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.NextPane, k.PrevPane, k.Tables, k.Help, k.Quit},
		{k.Filter, k.Goto, k.Clear, k.Follow, k.Pause},
		{k.Expert, k.FollowConn, k.Graph, k.Stats, k.Copy, k.Write, k.Text},
	}
}
