package session

import "github.com/usmnscope/usmnscope/schema"

// Payload schemas (schema.md): Unturned's payload decoding is
// unturned/payload's; the Index keeps the set and whether a reference
// resolved later is decoded with its listener's schema, and applies a
// decoding to the Message it shows (decodePayload, message.go).

// SetSchemas sets the payload schemas (schema.md) messages are decoded
// with when they are shown: the payload of a USMN invoke whose listener
// (type, version) has a schema, and the parameters of a vanilla
// InvokeMethod whose index has one. Nothing is decoded at feed time, so a
// reference that replay resolves later is decoded with its listener's
// schema whenever it is shown. A nil set (the default) leaves every
// message as it was.
func (c *Index) SetSchemas(s *schema.Set) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.schemas = s
	c.namesChanged()
}

// SetLateSchemas says whether a reference that was unresolved when it was
// decoded has its payload decoded with the schema of the listener the
// tables have resolved its ID to by the time it is shown (the default).
// A consumer that shows each message once, while the capture is still
// being read (dump), turns it off: what it prints must not depend on how
// far the feed got, and the record's listener stays unresolved too
// (outputs.md "listener").
func (c *Index) SetLateSchemas(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.noLate = !on
}

// Schemas returns the schemas set with SetSchemas, or nil.
func (c *Index) Schemas() *schema.Set {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.schemas
}

// lateConn is cn when late resolution is on (SetLateSchemas), else nil.
func (c *Index) lateConn(cn *connection) *connection {
	if c.noLate {
		return nil
	}
	return cn
}
