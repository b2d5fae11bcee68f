package views

import "charm.land/bubbles/v2/key"

// KeyMap holds the global bindings, matched before the focused pane's.
type KeyMap struct {
	Quit, NextPane, PrevPane, Filter, Goto, Help, Tables, Follow, Pause, Clear, NextMatch, PrevMatch key.Binding
}

// DefaultKeyMap returns bindings familiar from less, vim and Wireshark.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Quit:      key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		NextPane:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevPane:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Filter:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Goto:      key.NewBinding(key.WithKeys(":"), key.WithHelp(":N", "go to message")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Tables:    key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "tables/bits")),
		Follow:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow tail")),
		Pause:     key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "pause")),
		Clear:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filters")),
		NextMatch: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		PrevMatch: key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match")),
	}
}

func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.NextPane, k.Filter, k.Tables, k.Help, k.Quit}
}

func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.NextPane, k.PrevPane, k.Tables, k.Help, k.Quit},
		{k.Filter, k.NextMatch, k.PrevMatch, k.Goto, k.Clear},
		{k.Follow, k.Pause},
	}
}
