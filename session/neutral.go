package session

import "github.com/usmnscope/usmnscope/decode"

// The accessors here give the host's readers (render, the views) a
// connection's protocol part as decode's values, so that they need not
// name the protocol that made it (issue 23); what a protocol gives for
// them is made beside the rest of its hosting (hosted.go).

// Proto is t's protocol tables (decode.Tables): a ULinkRPC connection's
// `rpc` table; nil for the listener tables of Unturned, for a protocol
// that keeps none, and for a nil t.
func (t *Tables) Proto() decode.Tables {
	if t == nil {
		return nil
	}
	return t.ProtoTable
}

// ProtoTables is connection ci's protocol tables as of t (Tables.Proto),
// empty ones when ci keeps tables of its own but t holds none (nil t: a
// streaming Index keeps no history); nil when ci keeps none.
func (ci ConnInfo) ProtoTables(t *Tables) decode.Tables {
	if p := t.Proto(); p != nil {
		return p
	}
	return ci.EmptyTables
}
