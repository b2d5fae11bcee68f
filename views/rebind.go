package views

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"

	"github.com/usmnscope/usmnscope/views/bits"
	"github.com/usmnscope/usmnscope/views/conns"
	"github.com/usmnscope/usmnscope/views/detail"
	"github.com/usmnscope/usmnscope/views/filterbar"
	"github.com/usmnscope/usmnscope/views/messages"
	"github.com/usmnscope/usmnscope/views/pager"
	statspane "github.com/usmnscope/usmnscope/views/stats"
	"github.com/usmnscope/usmnscope/views/tables"
)

// Rebinding keys (issue 30; the config file's [keys], docs/cli.md "The
// config file"): every binding of the root's and the panes' KeyMaps has an
// action name. The root's own actions are named plainly ("quit",
// "copy", "mark"), a pane's with the pane's name first ("messages.down",
// "detail.apply_column", "filter.accept"), as the config file's
// [keys.messages] table spells them. Config.Keys replaces an action's keys
// (none: the action is off); CheckKeys refuses an unknown action, a key
// that names no key, and a key that two actions have where both are
// active at once (the keys of the focused pane and the global ones).

// scope names where a set of bindings is active at once: a pane with the
// focus (and the global keys), or an overlay or the filter bar.
type scope uint8

const (
	inConns scope = iota
	inMessages
	inDetail
	inBits
	inTables
	inPager
	inGraph
	inStats
	inBar
)

var scopeNames = [...]string{"the connections pane", "the message list", "the detail pane", "the bits pane", "the tables pane",
	"an overlay", "the I/O graph", "the statistics pane", "the filter bar"}

// panes are the scopes where the global keys are matched.
var panes = []scope{inConns, inMessages, inDetail, inBits, inTables}

// action is one rebindable binding.
type action struct {
	name   string
	b      *key.Binding
	scopes []scope
}

// actions lists m's bindings by action name, in the order the help lists
// them.
func (m *Model) actions() []action {
	var out []action
	add := func(name string, b *key.Binding, in ...scope) { out = append(out, action{name, b, in}) }
	k := &m.KeyMap
	every := append(slices.Clone(panes), inPager, inGraph)
	add("quit", &k.Quit, append(every, inStats)...)
	add("help", &k.Help, every...)
	for _, g := range []struct {
		name string
		b    *key.Binding
	}{
		{"next_pane", &k.NextPane}, {"prev_pane", &k.PrevPane}, {"open_filter", &k.Filter}, {"goto", &k.Goto},
		{"clear", &k.Clear}, {"show_tables", &k.Tables}, {"follow", &k.Follow}, {"pause", &k.Pause},
		{"expert", &k.Expert}, {"follow_conn", &k.FollowConn}, {"show_graph", &k.Graph}, {"show_stats", &k.Stats},
		{"copy", &k.Copy}, {"write", &k.Write}, {"text", &k.Text},
		{"time_format", &k.TimeFormat}, {"time_ref", &k.TimeRef},
		{"find", &k.Find}, {"find_next", &k.FindNext}, {"find_prev", &k.FindPrev},
	} {
		add(g.name, g.b, panes...)
	}
	// The root's keys that act in the message list only.
	add("pair", &k.Pair, inMessages)
	add("mark", &k.Mark, inMessages)
	add("next_mark", &k.NextMark, inMessages)
	add("prev_mark", &k.PrevMark, inMessages)
	add("marked_only", &k.MarkedOnly, inMessages)

	list := func(pane string, l *struct{ Up, Down, Top, Bottom *key.Binding }, in ...scope) {
		add(pane+".up", l.Up, in...)
		add(pane+".down", l.Down, in...)
		add(pane+".top", l.Top, in...)
		add(pane+".bottom", l.Bottom, in...)
	}
	lk := func(up, down, top, bottom *key.Binding) *struct{ Up, Down, Top, Bottom *key.Binding } {
		return &struct{ Up, Down, Top, Bottom *key.Binding }{up, down, top, bottom}
	}
	c := &m.conns.KeyMap
	list("conns", lk(&c.Up, &c.Down, &c.Top, &c.Bottom), inConns)
	ms := &m.msgs.KeyMap
	list("messages", lk(&ms.Up, &ms.Down, &ms.Top, &ms.Bottom), inMessages)
	for _, b := range []struct {
		name string
		b    *key.Binding
	}{
		{"page_up", &ms.PageUp}, {"page_down", &ms.PageDown}, {"next_match", &ms.NextMatch}, {"prev_match", &ms.PrevMatch},
		{"column_left", &ms.ColumnLeft}, {"column_right", &ms.ColumnRight}, {"sort", &ms.Sort}, {"remove_column", &ms.RemoveColumn},
		{"move_left", &ms.MoveLeft}, {"move_right", &ms.MoveRight}, {"narrower", &ms.Narrower}, {"wider", &ms.Wider},
	} {
		add("messages."+b.name, b.b, inMessages)
	}
	d := &m.detail.KeyMap
	list("detail", lk(&d.Up, &d.Down, &d.Top, &d.Bottom), inDetail)
	add("detail.toggle", &d.Toggle, inDetail)
	add("detail.expand", &d.Expand, inDetail)
	add("detail.collapse", &d.Collapse, inDetail)
	add("detail.apply_column", &d.ApplyColumn, inDetail)
	bt := &m.bits.KeyMap
	list("bits", lk(&bt.Up, &bt.Down, &bt.Top, &bt.Bottom), inBits)
	add("bits.left", &bt.Left, inBits)
	add("bits.right", &bt.Right, inBits)
	add("bits.next_field", &bt.NextField, inBits)
	add("bits.prev_field", &bt.PrevField, inBits)
	add("bits.order", &bt.Order, inBits)
	add("bits.bytes", &bt.Bytes, inBits)
	t := &m.tables.KeyMap
	list("tables", lk(&t.Up, &t.Down, &t.Top, &t.Bottom), inTables)
	add("tables.select", &t.Select, inTables)
	p := &m.pager.KeyMap
	list("pager", lk(&p.Up, &p.Down, &p.Top, &p.Bottom), inPager, inGraph)
	add("pager.page_up", &p.PageUp, inPager, inGraph)
	add("pager.page_down", &p.PageDown, inPager, inGraph)
	add("pager.jump", &p.Jump, inPager, inGraph)
	add("pager.close", &p.Close, inPager, inGraph, inStats)
	g := &m.GraphKeyMap
	add("graph.add", &g.Add, inGraph)
	add("graph.drop", &g.Drop, inGraph)
	add("graph.write", &g.Write, inGraph)
	s := &m.stats.KeyMap
	for _, b := range []struct {
		name string
		b    *key.Binding
	}{
		{"up", &s.Up}, {"down", &s.Down}, {"next_by", &s.NextBy}, {"sort_next", &s.SortNext},
		{"sort_prev", &s.SortPrev}, {"reverse", &s.Reverse}, {"filter", &s.Filter},
	} {
		add("stats."+b.name, b.b, inStats)
	}
	f := &m.bar.KeyMap
	for _, b := range []struct {
		name string
		b    *key.Binding
	}{
		{"accept", &f.Accept}, {"cancel", &f.Cancel}, {"delete", &f.Delete}, {"complete", &f.Complete},
		{"prev", &f.Prev}, {"next", &f.Next}, {"clear_line", &f.ClearLine},
	} {
		add("filter."+b.name, b.b, inBar)
	}
	return out
}

// Actions returns every action name Config.Keys may rebind, in the help's
// order.
func Actions() []string {
	m := keysOnly()
	var out []string
	for _, a := range m.actions() {
		out = append(out, a.name)
	}
	return out
}

// KeyError is a refused rebinding: Action is the action the config file
// set that is at fault.
type KeyError struct {
	Action string
	Text   string
}

func (e *KeyError) Error() string { return "keys." + e.Action + ": " + e.Text }

// KeyAction names the action at fault (internal/config names its line).
func (e *KeyError) KeyAction() string { return e.Action }

// CheckKeys reports the first rebinding of keys that cannot be applied: an
// unknown action, a key that names no key, or a key that another action
// has where both are active (the focused pane's keys and the global ones;
// an overlay's; the filter bar's). Only clashes with an action keys sets
// are reported: the defaults' own overlaps are resolved by the order the
// root matches keys in (in the bits pane, w is next field).
func CheckKeys(keys map[string][]string) error {
	m := keysOnly()
	return m.rebind(keys)
}

// keysOnly is a model holding the default bindings only.
func keysOnly() *Model {
	m := &Model{KeyMap: DefaultKeyMap(), GraphKeyMap: DefaultGraphKeyMap()}
	m.conns.KeyMap, m.msgs.KeyMap, m.detail.KeyMap = conns.DefaultKeyMap(), messages.DefaultKeyMap(), detail.DefaultKeyMap()
	m.bits.KeyMap, m.tables.KeyMap, m.pager.KeyMap = bits.DefaultKeyMap(), tables.DefaultKeyMap(), pager.DefaultKeyMap()
	m.stats.KeyMap, m.bar.KeyMap = statspane.DefaultKeyMap(), filterbar.DefaultKeyMap()
	return m
}

// rebind applies keys to m's bindings, and checks them as CheckKeys says.
func (m *Model) rebind(keys map[string][]string) error {
	if len(keys) == 0 {
		return nil
	}
	acts := m.actions()
	byName := map[string]*action{}
	for i := range acts {
		byName[acts[i].name] = &acts[i]
	}
	names := make([]string, 0, len(keys))
	for n := range keys {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := byName[n]
		if a == nil {
			return &KeyError{Action: n, Text: "no such action (docs/cli.md \"Keys\" lists them)"}
		}
		ks := keys[n]
		for _, k := range ks {
			if !validKey(k) {
				return &KeyError{Action: n, Text: fmt.Sprintf("%q is not a key (a character, or a name such as enter, esc, tab, space, up, pgdown, f5, with ctrl+, alt+ or shift+ before it)", k)}
			}
		}
		desc := a.b.Help().Desc
		if len(ks) == 0 && n == "quit" {
			return &KeyError{Action: n, Text: "quit cannot be turned off (give it another key)"}
		}
		if len(ks) == 0 {
			*a.b = key.NewBinding(key.WithDisabled(), key.WithHelp("", desc))
			continue
		}
		*a.b = key.NewBinding(key.WithKeys(ks...), key.WithHelp(strings.Join(ks, "/"), desc))
	}
	// A key two actions have in one scope, one of them set by keys.
	for sc := range scope(len(scopeNames)) {
		owner := map[string]string{}
		for _, a := range acts {
			if !slices.Contains(a.scopes, sc) || !a.b.Enabled() {
				continue
			}
			for _, k := range a.b.Keys() {
				other, ok := owner[k]
				if !ok {
					owner[k] = a.name
					continue
				}
				_, mine := keys[a.name]
				_, theirs := keys[other]
				switch {
				case mine:
					return &KeyError{Action: a.name, Text: fmt.Sprintf("%q is also %s's key in %s", k, other, scopeNames[sc])}
				case theirs:
					return &KeyError{Action: other, Text: fmt.Sprintf("%q is also %s's key in %s", k, a.name, scopeNames[sc])}
				}
			}
		}
	}
	return nil
}

// namedKeys are the key names a binding may use besides one character.
var namedKeys = map[string]bool{
	"enter": true, "esc": true, "tab": true, "space": true, "backspace": true, "delete": true, "insert": true,
	"up": true, "down": true, "left": true, "right": true, "home": true, "end": true, "pgup": true, "pgdown": true,
}

// validKey reports whether k names a key as bubbletea's KeyPressMsg.String
// spells it.
func validKey(k string) bool {
	for {
		rest, ok := cutAny(k, "ctrl+", "alt+", "shift+", "super+")
		if !ok {
			break
		}
		k = rest
	}
	if utf8.RuneCountInString(k) == 1 && k != " " {
		return true
	}
	if namedKeys[k] {
		return true
	}
	var n int
	if _, err := fmt.Sscanf(k, "f%d", &n); err == nil && fmt.Sprintf("f%d", n) == k && n >= 1 && n <= 20 {
		return true
	}
	return false
}

func cutAny(s string, prefixes ...string) (string, bool) {
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(s, p); ok && rest != "" {
			return rest, true
		}
	}
	return s, false
}

// keyOf is the key a binding shows in help and notes.
func keyOf(b key.Binding) string { return b.Help().Key }

// withDesc returns b with another help text, its key kept.
func withDesc(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// joined is one help entry for two bindings ("< >").
func joined(a, b key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(append(slices.Clone(a.Keys()), b.Keys()...)...), key.WithHelp(keyOf(a)+" "+keyOf(b), desc))
}

// sameKeys reports whether a and b share a key.
func sameKeys(a, b key.Binding) bool {
	for _, k := range a.Keys() {
		if slices.Contains(b.Keys(), k) {
			return true
		}
	}
	return false
}
