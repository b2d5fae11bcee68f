package views

// startFilter puts Config.Filter in force (open --filter): the list shows
// the matching messages and the bar the expression, as if typed after /.
func (m *Model) startFilter() {
	if m.cfg.Filter == "" || m.cfg.Parse == nil {
		return
	}
	if match, _, err := m.cfg.Parse(m.cfg.Filter); err == nil {
		m.setFilter(m.cfg.Filter, match)
		m.bar.SetApplied(m.cfg.Filter)
		m.applyFilter()
	}
}
