package decode

// Facts are what a Record may say beyond Meta, each an interface of its
// own that a host asks for with a type assertion (as gopacket asks a
// layer for its ApplicationLayer): a protocol implements those it has
// values for, and a host that reads them (export's Parquet columns)
// names no protocol.

// Call is a call's identity: the service and method called, by name
// (nil: the contracts do not give it) and by ID, the request's ID, and an
// answer's status. A nil field is a value the record does not carry
// (outputs.md: null).
type Call struct {
	Service, Method, Status *string
	ServiceID, MethodID     *int32
	RequestID               *uint32
}

// Caller is a Record of a protocol of calls (ULinkRPC's Requests,
// Responses and Pushes).
type Caller interface {
	Call() Call
}

// ValueWriter is a Record whose field values its protocol writes as JSON
// text in its own way (ULinkRPC's MemoryPack values): AppendValue appends
// v, one of its fields' values, as the record's `dump --json` spells it.
// A host writes the values of a Record that is not one as it writes its
// own.
type ValueWriter interface {
	AppendValue(dst []byte, v any) []byte
}

// Framed is a Record whose bytes on the wire hold framing around the
// bytes its fields lie in (Meta.Data): `stats` splits every wire bit into
// framing, header, payload and padding (issue 26).
type Framed interface {
	// Framing is the record's bytes on the wire, how many of them are
	// framing (a length prefix, a transform's flags, IV and MAC), and
	// whether its fields split the rest: false when they cannot be told
	// apart on the wire (a compressed or undecrypted body), all payload
	// then.
	Framing() (wire, framing int, split bool)
}
