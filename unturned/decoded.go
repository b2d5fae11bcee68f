package unturned

import (
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
)

// Kind names what a message is, across both directions: the vanilla
// messages of wire.md 3 and the two USMN internal messages of wire.md 4.
// The direction and enum value map to a Kind through the profile.
type Kind uint8

const (
	KindUnknown Kind = iota
	// C→S (EServerMessage)
	KindGetWorkshopFiles
	KindReadyToConnect
	KindAuthenticate
	KindServerBattlEye // ThirdPartyAntiCheat
	KindServerPingRequest
	KindServerPingResponse
	KindServerInvokeMethod
	KindValidateAssets
	KindGracefullyDisconnect
	// S→C (EClientMessage)
	KindUpdateReliableBuffer
	KindUpdateUnreliableBuffer
	KindClientPingRequest
	KindClientPingResponse
	KindShutdown
	KindPlayerConnected
	KindPlayerDisconnected
	KindDownloadWorkshopFiles
	KindVerify
	KindAccepted
	KindRejected
	KindBanned
	KindKicked
	KindAdmined
	KindUnadmined
	KindClientBattlEye // ThirdpartyAntiCheat
	KindQueuePositionChanged
	KindClientInvokeMethod
	KindReplicateConfig
	// USMN (both directions)
	KindInvokeMessageListener
	KindNegotiateListenerDetails
	kindCount
)

// kindNames are the outputs.md "msg" names: the wire reference's names.
var kindNames = [kindCount]string{
	KindUnknown:                  "Unknown",
	KindGetWorkshopFiles:         "GetWorkshopFiles",
	KindReadyToConnect:           "ReadyToConnect",
	KindAuthenticate:             "Authenticate",
	KindServerBattlEye:           "ThirdPartyAntiCheat",
	KindServerPingRequest:        "PingRequest",
	KindServerPingResponse:       "PingResponse",
	KindServerInvokeMethod:       "InvokeMethod",
	KindValidateAssets:           "ValidateAssets",
	KindGracefullyDisconnect:     "GracefullyDisconnect",
	KindUpdateReliableBuffer:     "UPDATE_RELIABLE_BUFFER",
	KindUpdateUnreliableBuffer:   "UPDATE_UNRELIABLE_BUFFER",
	KindClientPingRequest:        "PingRequest",
	KindClientPingResponse:       "PingResponse",
	KindShutdown:                 "Shutdown",
	KindPlayerConnected:          "PlayerConnected",
	KindPlayerDisconnected:       "PlayerDisconnected",
	KindDownloadWorkshopFiles:    "DownloadWorkshopFiles",
	KindVerify:                   "Verify",
	KindAccepted:                 "Accepted",
	KindRejected:                 "Rejected",
	KindBanned:                   "Banned",
	KindKicked:                   "Kicked",
	KindAdmined:                  "Admined",
	KindUnadmined:                "Unadmined",
	KindClientBattlEye:           "ThirdpartyAntiCheat",
	KindQueuePositionChanged:     "QueuePositionChanged",
	KindClientInvokeMethod:       "InvokeMethod",
	KindReplicateConfig:          "ReplicateConfig",
	KindInvokeMessageListener:    "InvokeMessageListener",
	KindNegotiateListenerDetails: "NegotiateListenerDetails",
}

func (k Kind) String() string { return enum.Name(kindNames[:], k) }

// State is the per-direction context a message is decoded in: whether its
// enum is widened (wire.md 4.2) and the Serverside_ID_Bit_Count in force
// (wire.md 4.3). The connection tracker owns it; Decode only reads it.
type State struct {
	Widened bool
	IDBits  int  // Serverside_ID_Bit_Count in force
	IDKnown bool // whether IDBits was learned from the wire
}

// Marker is a decoded USMN detection marker (wire.md 6, marker layout).
type Marker struct {
	Magic     uint32
	Version   uint32
	IDBits    int  // S→C only
	HasIDBits bool // true on the S→C marker
}

// Invoke is the header of an Invoke Message Listener (wire.md 4.3).
type Invoke struct {
	HasDefinition bool
	HasClientID   bool   // C→S only
	IDBits        int    // S→C definition: the Serverside_ID_Bit_Count it carries
	ServerID      uint32 // valid when !IsClientID
	ClientID      uint32 // valid when IsClientID (C→S with Has_Client_ID)
	IsClientID    bool
	Type          string // valid when HasDefinition; set by Decode only when recording spans
	TypeBytes     []byte // the type name's bytes, aliasing the message; always set by Decode
	Version       uint32 // valid when HasDefinition
}

// TypeName returns the listener type name, from Type or else TypeBytes.
func (i *Invoke) TypeName() string {
	if i.Type != "" {
		return i.Type
	}
	return string(i.TypeBytes)
}

// NegotiateMode is the mode of Negotiate Listener Details (wire.md 4.4). Its
// values are the profile's; these constants are the meanings.
type NegotiateMode uint8

const (
	TellClientMissingListener NegotiateMode = iota
	TellClientListenerID
	TellServerMissingListener
	RequestServerListenerID
	ModeUnknown
)

var modeNames = [...]string{
	TellClientMissingListener: "TellClientMissingListener",
	TellClientListenerID:      "TellClientListenerId",
	TellServerMissingListener: "TellServerMissingListener",
	RequestServerListenerID:   "RequestServerListenerId",
	ModeUnknown:               "Unknown",
}

func (m NegotiateMode) String() string { return enum.Name(modeNames[:], m) }

// Negotiate is a decoded Negotiate Listener Details (wire.md 4.4). Which
// fields are valid depends on Mode.
type Negotiate struct {
	Mode     NegotiateMode
	Raw      uint32 // the mode value as read
	ClientID uint32
	ServerID uint32
	Version  uint32
	Type     string // set by Decode only when recording spans
	// TypeBytes is the type name aliasing the message; always set by
	// Decode (the hot path does not allocate a string).
	TypeBytes []byte
	// IDBits is the width Serverside_Listener_ID was read (or is to be
	// written) with: the Serverside_ID_Bit_Count in force (wire.md 4.3).
	IDBits int
}

// TypeName returns the listener type name, from Type or else TypeBytes.
func (n *Negotiate) TypeName() string {
	if n.Type != "" {
		return n.Type
	}
	return string(n.TypeBytes)
}

// Decoded is what Decode learns from one message's bytes, before any
// connection state is applied. It holds values, not pointers, so that a hot
// loop can decode into one reused Decoded without allocating; the Has* flags
// and Kind say which parts are valid.
type Decoded struct {
	Enum Enum
	Kind Kind

	HasMarker   bool   // GetWorkshopFiles / DownloadWorkshopFiles carried the USMN marker
	Marker      Marker //
	TrailerBit  int    // first bit after the vanilla body (detection messages)
	TrailerBits int    // bits after the vanilla body that are not the marker (an unknown trailer)

	Invoke    Invoke    // valid when Kind == KindInvokeMessageListener
	Negotiate Negotiate // valid when Kind == KindNegotiateListenerDetails

	PayloadBit  int // USMN invoke payload: first bit
	PayloadBits int // and length, trailing pad bits included (wire.md 4.3)

	Vanilla Vanilla // the values of a vanilla message that Summary shows

	Findings []dissect.Finding // appended to; a caller reusing a Decoded may pass it with Findings[:0]

	// scratch is Decode's working state. It lives here, in memory the
	// caller owns, because the dispatch table's indirect calls would
	// otherwise move it to the heap on every message.
	scratch decoder
}

// Clean reports whether the message decoded without an error-severity
// finding. Widened-enum inference keeps the reading under which messages
// decode cleanly (wire.md 4.2).
func (d *Decoded) Clean() bool {
	for _, f := range d.Findings {
		if f.Severity == dissect.Error {
			return false
		}
	}
	return true
}

// Enum is the message enum as read: its value, its width and whether it was
// read widened (wire.md 4.2).
type Enum struct {
	Value   uint32
	Bits    int
	Widened bool
}

// Listener describes the USMN listener a message refers to, as known when
// the message was decoded (outputs.md "listener"). Nil pointers are JSON null.
type Listener struct {
	Type     *string
	Version  *uint32
	ClientID *uint32
	ServerID *uint32
	Resolved bool
}
