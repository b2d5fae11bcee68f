package report

import (
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

// Proto is the protocol of a record.
type Proto uint8

const (
	Unturned Proto = iota // SystemSockets NetPak messages (wire.md)
	ULinkRPC              // ULinkRPC frames (ulinkrpc.md)
)

var protoNames = [...]string{Unturned: "unturned", ULinkRPC: "ulinkrpc"}

// protoOf is the Proto a hosted record's protocol name (decode.Meta's
// Proto) is: ULinkRPC for its name; any other is counted as Unturned, the
// host's own, as its records were before a hosted protocol said its
// framing.
func protoOf(name string) Proto {
	if name == protoNames[ULinkRPC] {
		return ULinkRPC
	}
	return Unturned
}

func (p Proto) String() string {
	if int(p) < len(protoNames) {
		return protoNames[p]
	}
	return "unknown"
}

// What is the kind of pair whose answer a record is.
type What uint8

const (
	NoPair     What = iota
	Ping            // PingResponse answering a PingRequest
	ListenerID      // TellClientListenerId / TellClientMissingListener answering RequestServerListenerId
	RPC             // ULinkRPC Response answering a Request
	KeepAlive       // ULinkRPC KeepAlivePong answering a KeepAlivePing
)

var whatNames = [...]string{NoPair: "none", Ping: "ping", ListenerID: "listener_id", RPC: "rpc", KeepAlive: "keepalive"}

func (w What) String() string {
	if int(w) < len(whatNames) {
		return whatNames[w]
	}
	return "unknown"
}

// None is the key of a record that has no value for a grouping (a ping
// has no listener): every record is in one group of every grouping, so
// that the groups' bytes add up to the total.
const None = "(none)"

// Unresolved is the listener key of a USMN message whose listener type is
// not known (outputs.md).
const Unresolved = "(unresolved)"

// Record is what the statistics need of one message, whatever its
// protocol: the adapter (adapter.go) makes it from the host's message.
type Record struct {
	N     int
	Time  time.Time
	Conn  string
	Dir   dissect.Dir
	Proto Proto

	Kind     string // outputs.md "msg"
	Listener string // USMN listener type, Unresolved, or "" for none
	Message  string // payload_message, or ""
	Method   string // ULinkRPC service.method or vanilla payload_method, or ""

	Bytes int   // on the stream: len plus the length prefix
	Bits  Split // adds up to 8 × Bytes

	// The answer of a pair: What, its latency, and the direction of the
	// asking message; for RPC the method's ids and names.
	Ask                 Ask
	Latency             time.Duration
	ServiceID, MethodID int32
	Service, MethodName *string

	// ULinkRPC: a Request, or the Response answering Request n (0: none):
	// the unanswered requests of a connection (ulinkrpc.md 4).
	Request  bool
	Answered int
}

// Ask is the pair an answering record closes.
type Ask struct {
	What What
	Dir  dissect.Dir // the asking message's direction
}

// Part is one part of a message's bits (outputs.md "bits").
type Part uint8

const (
	Framing Part = iota
	Header
	Definition
	Payload
	Padding
	nParts
)

var partNames = [...]string{Framing: "framing", Header: "header", Definition: "definition", Payload: "payload", Padding: "padding"}

func (p Part) String() string {
	if p < nParts {
		return partNames[p]
	}
	return "unknown"
}

// Split is a message's bits by part.
type Split [nParts]int64

// Total is the sum of the parts.
func (s *Split) Total() int64 {
	var t int64
	for _, v := range s {
		t += v
	}
	return t
}

// Add adds o's parts to s.
func (s *Split) Add(o *Split) {
	for i := range s {
		s[i] += o[i]
	}
}

// SplitSpans adds to s the split of a message body of bits bits among the
// spans, each classified by class: every bit goes to the part of the
// first span in wire order that covers it (a nested span lies inside its
// parent and adds nothing), and bits no span covers go to Padding. Spans
// past the body are clipped to it, so the parts added always sum to bits.
func SplitSpans(s *Split, spans []netpak.Span, bits int, class func(name string) Part) {
	hi := 0 // bits before hi are attributed
	for _, sp := range spans {
		lo, end := max(sp.Bit, 0), min(sp.Bit+sp.Bits, bits)
		if sp.Bits <= 0 || end <= hi {
			continue
		}
		if lo > hi {
			s[Padding] += int64(lo - hi)
			hi = lo
		}
		s[class(sp.Name)] += int64(end - hi)
		hi = end
	}
	if bits > hi {
		s[Padding] += int64(bits - hi)
	}
}

// UnturnedClass classifies the spans of an Unturned message of kind
// (outputs.md "bits"): the enum, the USMN listener header, every
// negotiate field, the USMN marker and a vanilla InvokeMethod's channel
// and method index are header; Listener_Type_Name and Listener_Version of
// an InvokeMessageListener are its definition (first use); "padding" spans
// are padding; everything else (the listener payload, a vanilla message's
// parameters, undecoded bytes) is payload.
func UnturnedClass(kind string) func(string) Part {
	switch kind {
	case "InvokeMessageListener":
		return invokeClass
	case "NegotiateListenerDetails":
		return negotiateClass
	}
	return vanillaClass
}

// topName is a nested field's top-level name (`marker` of
// `marker.magic`, `payload` of `payload.items[0]`).
func topName(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] == '.' || name[i] == '[' {
			return name[:i]
		}
	}
	return name
}

// The classifiers match the decoders' exact names first (a string switch,
// no allocation or map), and nested names by their top-level part.

func invokeClass(name string) Part {
	switch name {
	case "payload":
		return Payload
	case "enum", "Has_Listener_Definition", "Serverside_ID_Bit_Count", "Listener_ID", "Has_Client_ID",
		"Clientside_Listener_ID", "Serverside_Listener_ID":
		return Header
	case "Listener_Type_Name", "Listener_Version":
		return Definition
	case "padding":
		return Padding
	}
	if top := topName(name); top != name {
		return invokeClass(top)
	}
	return Payload
}

func negotiateClass(name string) Part {
	if name == "padding" || topName(name) == "padding" {
		return Padding
	}
	return Header
}

func vanillaClass(name string) Part {
	switch name {
	case "enum", "marker", "trailer", "channel", "call_index", "method":
		return Header
	case "padding":
		return Padding
	}
	if top := topName(name); top != name {
		return vanillaClass(top)
	}
	return Payload
}

// RPCClass classifies a ULinkRPC envelope's fields (ulinkrpc.md 4): the
// payload (and its members) and a Response's error text are payload,
// every other envelope field header.
func RPCClass(name string) Part {
	switch name {
	case "payload", "error":
		return Payload
	case "type", "request_id", "service_id", "method_id", "length", "status", "has_error", "error_length", "ticks":
		return Header
	}
	if top := topName(name); top != name {
		return RPCClass(top)
	}
	return Header
}
