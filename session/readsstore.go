package session

// ReadsStore reports whether Message, Detail and Tables may read the Store:
// one is set (SetStore), so messages may be recorded by their offset in the
// capture file. The TUI then calls them only from commands, off the UI
// goroutine; without one they read memory only.
func (c *Index) ReadsStore() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.store != nil
}
