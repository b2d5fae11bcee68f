package listeners

import (
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
	"github.com/usmnscope/usmnscope/unturned"
)

// OpKind is what a USMN message does to the tables (wire.md 4.5). The
// connection turns each decoded USMN message into one Op; the tables only
// ever change by applying ops in message order, so a state as of message n
// is a checkpoint plus a replay of the ops after it.
type OpKind uint8

const (
	OpNone           OpKind = iota
	OpServerDef             // S→C invoke with definition
	OpServerInvoke          // S→C invoke by server ID
	OpClientDef             // C→S invoke with Has_Client_ID and definition
	OpClientInvoke          // C→S invoke by client ID
	OpServerIDInvoke        // C→S invoke by Serverside_Listener_ID
	OpMissingClient         // S→C TellClientMissingListener
	OpTellID                // S→C TellClientListenerId
	OpMissingServer         // C→S TellServerMissingListener
	OpRequestID             // C→S RequestServerListenerId
)

var opNames = [...]string{
	OpNone: "none", OpServerDef: "server definition", OpServerInvoke: "server invoke", OpClientDef: "client definition",
	OpClientInvoke: "client invoke", OpServerIDInvoke: "invoke by server ID", OpMissingClient: "TellClientMissingListener",
	OpTellID: "TellClientListenerId", OpMissingServer: "TellServerMissingListener", OpRequestID: "RequestServerListenerId",
}

// String names the operation; Unknown(k) for a value not listed.
func (k OpKind) String() string { return enum.Name(opNames[:], k) }

// Op is one table operation, taken from one message.
type Op struct {
	Kind    OpKind
	Dir     dissect.Dir
	IDBits  uint8 // server ID bit count: the definition's, or the one in force
	N       int   // the message's number
	CID     uint32
	SID     uint32
	Version uint32
	Payload int // an invoke's payload bits
	Type    string
}

// defines reports whether the Op creates or updates a table entry, which is
// when the unresolved queue is replayed (wire.md 4.5).
func (o *Op) defines() bool {
	switch o.Kind {
	case OpServerDef, OpClientDef, OpTellID, OpRequestID:
		return true
	}
	return false
}

// OpFor sets o to the table operation of a decoded USMN message, number
// n in direction dir, decoded in st; intern gives a type name's one copy. A message
// that did not decode cleanly changes nothing: its IDs may be garbage. It
// fills o in place: an Op returned by value was built field by field and
// copied whole, which stalled the store buffer on every USMN message
// (issue 18).
func OpFor(o *Op, dir dissect.Dir, n int, st unturned.State, d *unturned.Decoded, intern func([]byte) string) {
	*o = Op{}
	o.Dir, o.N, o.IDBits = dir, n, uint8(st.IDBits)
	if !d.Clean() {
		return
	}
	switch d.Kind {
	case unturned.KindInvokeMessageListener:
		iv := &d.Invoke
		o.Payload = d.PayloadBits
		switch {
		case dir == dissect.S2C && iv.HasDefinition:
			o.Kind, o.SID, o.IDBits, o.Version, o.Type = OpServerDef, iv.ServerID, uint8(iv.IDBits), iv.Version, intern(opTypeBytes(iv.Type, iv.TypeBytes))
		case dir == dissect.S2C:
			o.Kind, o.SID = OpServerInvoke, iv.ServerID
		case iv.IsClientID && iv.HasDefinition:
			o.Kind, o.CID, o.Version, o.Type = OpClientDef, iv.ClientID, iv.Version, intern(opTypeBytes(iv.Type, iv.TypeBytes))
		case iv.IsClientID:
			o.Kind, o.CID = OpClientInvoke, iv.ClientID
		default:
			o.Kind, o.SID = OpServerIDInvoke, iv.ServerID
		}
	case unturned.KindNegotiateListenerDetails:
		ng := &d.Negotiate
		o.CID, o.SID, o.Version = ng.ClientID, ng.ServerID, ng.Version
		switch {
		case dir == dissect.S2C && ng.Mode == unturned.TellClientMissingListener:
			o.Kind = OpMissingClient
		case dir == dissect.S2C && ng.Mode == unturned.TellClientListenerID:
			o.Kind, o.Type = OpTellID, intern(opTypeBytes(ng.Type, ng.TypeBytes))
		case dir == dissect.C2S && ng.Mode == unturned.TellServerMissingListener:
			o.Kind = OpMissingServer
		case dir == dissect.C2S && ng.Mode == unturned.RequestServerListenerID:
			o.Kind, o.Type = OpRequestID, intern(opTypeBytes(ng.Type, ng.TypeBytes))
		}
	}
}

func opTypeBytes(s string, b []byte) []byte {
	if b == nil && s != "" {
		return []byte(s)
	}
	return b
}
