package listeners

import (
	"github.com/usmnscope/usmnscope/internal/enum"
	"github.com/usmnscope/usmnscope/unturned"
)

// Named is what the tables know of the listener a USMN message names, as
// of the message (outputs.md "listener"): its client and server IDs and
// its type and version, each when known, and how its Resolved stands.
type Named struct {
	CID, SID, Version       uint32
	Type                    string
	HasCID, HasSID, HasType bool
	Resolved                Resolution
}

// Resolution is how Name leaves a message's resolved flag.
type Resolution uint8

const (
	AsApplied  Resolution = iota // as applying its Op said (Result.Resolved)
	Resolved                     // resolved: a Tell*MissingListener for an ID the tables know
	Unresolved                   // unresolved: an ID the tables do not know, or an Op not applied
)

var resolutionNames = [...]string{AsApplied: "as applied", Resolved: "resolved", Unresolved: "unresolved"}

// String names the resolution; Unknown(r) for a value not listed.
func (r Resolution) String() string { return enum.Name(resolutionNames[:], r) }

// Name sets nm to what t knows of the listener named by the message of o,
// decoded as d, after o was applied. An Op that took nothing (the message
// did not decode cleanly) gives only what the message says that may be
// trusted: a client ID, read right after the one-bit flags (a server ID
// read before the error may already be garbage). It fills nm in place, as
// OpFor fills an Op (issue 18).
func (t *State) Name(o *Op, d *unturned.Decoded, nm *Named) {
	*nm = Named{}
	setCID := func(id uint32) { nm.CID, nm.HasCID = id, true }
	setSID := func(id uint32) { nm.SID, nm.HasSID = id, true }
	setType := func(typ string, version uint32) { nm.Type, nm.Version, nm.HasType = typ, version, true }
	switch o.Kind {
	case OpServerDef, OpServerInvoke:
		setSID(o.SID)
		if e, ok := t.server.get(o.SID); ok {
			setType(e.Type, e.Version)
		}
		if cid, ok := t.mappedBy.get(o.SID); ok {
			setCID(cid)
		}
	case OpClientDef, OpClientInvoke:
		setCID(o.CID)
		if e, ok := t.client.get(o.CID); ok {
			setType(e.Type, e.Version)
			if e.Mapped {
				setSID(e.ServerID)
			}
		}
	case OpServerIDInvoke:
		setSID(o.SID)
		if cid, ok := t.mappedBy.get(o.SID); ok {
			setCID(cid)
			if e, ok := t.client.get(cid); ok {
				setType(e.Type, e.Version)
			}
		} else if e, ok := t.server.get(o.SID); ok {
			setType(e.Type, e.Version)
		}
	case OpTellID:
		setCID(o.CID)
		setSID(o.SID)
		setType(o.Type, o.Version)
	case OpRequestID:
		setCID(o.CID)
		setType(o.Type, o.Version)
		if e, ok := t.client.get(o.CID); ok && e.Mapped {
			setSID(e.ServerID)
		}
	case OpMissingClient:
		setCID(o.CID)
		e, ok := t.client.get(o.CID)
		nm.missing(ok, e.Type, e.Version)
	case OpMissingServer:
		setSID(o.SID)
		e, ok := t.server.get(o.SID)
		nm.missing(ok, e.Type, e.Version)
	default:
		nm.Resolved = Unresolved
		if d.Kind == unturned.KindInvokeMessageListener && d.Invoke.IsClientID {
			setCID(d.Invoke.ClientID)
		}
	}
}

// missing sets what a Tell*MissingListener names beyond its ID: the type
// and version of the ID's entry when the tables know it (resolved), else
// nothing (unresolved).
func (nm *Named) missing(known bool, typ string, version uint32) {
	nm.Resolved = Unresolved
	if known {
		nm.Type, nm.Version, nm.HasType, nm.Resolved = typ, version, true, Resolved
	}
}
