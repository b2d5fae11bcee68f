package session

import "github.com/usmnscope/usmnscope/dissect"

// touch records that cn's summary may change in the call under way.
func (c *Index) touch(cn *connection) {
	c.ver++
	cn.ver = c.ver
}

// captureFinding keeps f among the capture-wide findings (up to
// Limits.MaxFindings) and counts its severity.
func (c *Index) captureFinding(f dissect.Finding) {
	if !c.capHas || f.Severity > c.capWorst {
		c.capWorst, c.capHas = f.Severity, true
	}
	c.findings = c.keepFinding(c.findings, &c.suppressed, f, "capture")
}

// ConnectionsSince brings dst, the connection summaries as of version
// since (nil and 0 the first time), up to date, and returns it with the
// version it is now at: connections first seen since are appended, those
// changed since are copied over their entry, the rest are left alone. The
// summaries carry no Findings (ConnFindings gives a connection's on
// demand), so a reader that polls while a capture loads (the TUI) copies
// only what changed and never the findings, and holds the lock for one
// pass over the connections. dst must be what the previous call returned.
func (c *Index) ConnectionsSince(dst []ConnInfo, since uint64) ([]ConnInfo, uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if since == c.ver && len(dst) == len(c.conns) {
		return dst, since
	}
	if len(dst) > len(c.conns) || since > c.ver {
		dst, since = dst[:0], 0 // not a previous answer of this Index
	}
	for i, cn := range c.conns {
		if i < len(dst) && cn.ver <= since {
			continue
		}
		info := cn.info
		info.Findings = nil
		if i < len(dst) {
			dst[i] = info
		} else {
			dst = append(dst, info)
		}
	}
	return dst, c.ver
}

// ConnFindings returns a copy of the findings kept on conn and how many
// more were counted but not kept (Limits.MaxFindings).
func (c *Index) ConnFindings(conn dissect.Conn) ([]dissect.Finding, int) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	cn, ok := c.lookup(conn)
	if !ok {
		return nil, 0
	}
	return append([]dissect.Finding(nil), cn.info.Findings...), cn.info.Suppressed
}

// CaptureWorst returns the worst severity of the capture-wide findings,
// those counted but not kept included, and whether there is any.
func (c *Index) CaptureWorst() (dissect.Severity, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.capWorst, c.capHas
}
