package detail

import "strings"

// Find moves to the next (d > 0) or previous (d < 0) node of the whole
// tree, closed groups included, after the selected one and wrapping
// around, whose text contains text (case folded), and opens the groups
// around it (Wireshark's find in the packet details). It reports whether
// one was found.
func (m *Model) Find(text string, d int) bool {
	type item struct {
		n       *node
		parents []string
	}
	var all []item
	var walk func(ns []*node, parents []string)
	walk = func(ns []*node, parents []string) {
		for _, n := range ns {
			all = append(all, item{n, parents})
			walk(n.children, append(append([]string(nil), parents...), n.path))
		}
	}
	walk(m.root, nil)
	if len(all) == 0 || text == "" {
		return false
	}
	cur := -1
	if c := m.Cursor(); c >= 0 && c < len(m.lines) {
		for i, it := range all {
			if it.n == m.lines[c] {
				cur = i
			}
		}
	}
	want := strings.ToLower(text)
	step := 1
	if d < 0 {
		step = -1
	}
	for k := 1; k <= len(all); k++ {
		i := ((cur+step*k)%len(all) + len(all)) % len(all)
		it := all[i]
		if !strings.Contains(strings.ToLower(it.n.text+" "+it.n.off), want) {
			continue
		}
		for _, p := range it.parents {
			delete(m.closed, p)
		}
		m.flatten()
		for j, n := range m.lines {
			if n == it.n {
				m.SetCursor(j, len(m.lines))
			}
		}
		return true
	}
	return false
}
