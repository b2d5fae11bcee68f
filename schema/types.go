package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is a field type of schema.md section 3. Each reads one NetPak
// primitive of wire.md section 1.3, or groups other fields.
type Kind uint8

// The field kinds, in the order of schema.md's section 3 table.
const (
	Invalid       Kind = iota
	Bool               // bool: 1 bit
	UInt8              // uint8
	Int8               // int8
	UInt16             // uint16
	Int16              // int16
	UInt32             // uint32
	Int32              // int32
	UInt64             // uint64: high dword first
	Int64              // int64: high dword first
	Float              // float: IEEE-754 single
	UInt               // uint:N, UIntBits(N)
	Signed             // signed:N, SignedInt in N bits
	Enum               // enum:N with values
	String             // string, string:N
	Bytes              // bytes:N: align, then N bytes
	ByteArray          // bytes: UInt8 length, align, the bytes
	NetID              // netid
	SteamID            // steamid
	GUID               // guid
	DateTime           // datetime
	Vector3            // vector3, vector3:I,F: ClampedVector3
	Quaternion         // quaternion, quaternion:B: smallest three
	Normal3            // normal3, normal3:B: NormalVector3
	ClampedFloat       // clampedfloat:I,F
	UClampedFloat      // uclampedfloat:I,F
	UNorm              // unorm:N
	SNorm              // snorm:N
	Radians            // radians:N
	Degrees            // degrees:N
	Yaw                // yaw:N: VectorAsYaw
	Color32RGB         // color32rgb
	Color32RGBA        // color32rgba
	Transform          // transform
	Align              // align: zero padding to the next byte
	List               // list:MAX
	Optional           // optional
	Struct             // struct
	numKinds
)

// kindInfo describes how a kind is spelled: its name, how many arguments
// it takes after the colon, whether they may be left out (then def holds
// the game's default, wire.md 1.3) and each argument's range.
type kindInfo struct {
	name     string
	args     int  // 0, 1 (N) or 2 (I,F)
	optional bool // the arguments may be left out
	def      [2]int
	lo, hi   [2]int
}

// maxListCount is the largest list:MAX: a count is at most 32 bits wide
// (wire.md 1.3, UIntBits(n) with n up to 32).
const maxListCount = 1<<32 - 1

// maxFixedBytes bounds bytes:N by the largest SystemSockets message
// (wire.md 2: a 2-byte length, at most 65535 bytes).
const maxFixedBytes = 65535

var kinds = [numKinds]kindInfo{
	Invalid:       {name: "invalid"},
	Bool:          {name: "bool"},
	UInt8:         {name: "uint8"},
	Int8:          {name: "int8"},
	UInt16:        {name: "uint16"},
	Int16:         {name: "int16"},
	UInt32:        {name: "uint32"},
	Int32:         {name: "int32"},
	UInt64:        {name: "uint64"},
	Int64:         {name: "int64"},
	Float:         {name: "float"},
	UInt:          {name: "uint", args: 1, hi: [2]int{32}},
	Signed:        {name: "signed", args: 1, lo: [2]int{1}, hi: [2]int{32}},
	Enum:          {name: "enum", args: 1, hi: [2]int{32}},
	String:        {name: "string", args: 1, optional: true, def: [2]int{11}, hi: [2]int{32}},
	Bytes:         {name: "bytes", args: 1, hi: [2]int{maxFixedBytes}},
	ByteArray:     {name: "bytes"},
	NetID:         {name: "netid"},
	SteamID:       {name: "steamid"},
	GUID:          {name: "guid"},
	DateTime:      {name: "datetime"},
	Vector3:       {name: "vector3", args: 2, optional: true, def: [2]int{13, 7}, hi: [2]int{32, 32}},
	Quaternion:    {name: "quaternion", args: 1, optional: true, def: [2]int{9}, lo: [2]int{2}, hi: [2]int{32}},
	Normal3:       {name: "normal3", args: 1, optional: true, def: [2]int{9}, lo: [2]int{2}, hi: [2]int{32}},
	ClampedFloat:  {name: "clampedfloat", args: 2, hi: [2]int{32, 32}},
	UClampedFloat: {name: "uclampedfloat", args: 2, hi: [2]int{32, 32}},
	UNorm:         {name: "unorm", args: 1, lo: [2]int{1}, hi: [2]int{32}},
	SNorm:         {name: "snorm", args: 1, lo: [2]int{2}, hi: [2]int{32}},
	Radians:       {name: "radians", args: 1, lo: [2]int{1}, hi: [2]int{32}},
	Degrees:       {name: "degrees", args: 1, lo: [2]int{1}, hi: [2]int{32}},
	Yaw:           {name: "yaw", args: 1, lo: [2]int{1}, hi: [2]int{32}},
	Color32RGB:    {name: "color32rgb"},
	Color32RGBA:   {name: "color32rgba"},
	Transform:     {name: "transform"},
	Align:         {name: "align"},
	List:          {name: "list", args: 1, lo: [2]int{1}, hi: [2]int{maxListCount}},
	Optional:      {name: "optional"},
	Struct:        {name: "struct"},
}

// String returns the kind's name as a schema spells it, or Unknown(n).
func (k Kind) String() string {
	if k < numKinds && k != Invalid {
		return kinds[k].name
	}
	return "Unknown(" + strconv.Itoa(int(k)) + ")"
}

// Type is a parsed type string: its kind and up to two widths (N, or I and
// F). Defaults are filled in, so vector3 is Type{Vector3, 13, 7}.
type Type struct {
	Kind Kind
	A, B int
}

// String spells t as a schema would, with its widths always given
// ("vector3:13,7", "string:11", "list:8", "bytes").
func (t Type) String() string {
	info := kinds[Invalid]
	if t.Kind < numKinds {
		info = kinds[t.Kind]
	}
	switch {
	case t.Kind >= numKinds:
		return t.Kind.String()
	case info.args == 1:
		return info.name + ":" + strconv.Itoa(t.A)
	case info.args == 2:
		return info.name + ":" + strconv.Itoa(t.A) + "," + strconv.Itoa(t.B)
	}
	return info.name
}

// byName maps a type name to its kind; "bytes" resolves to ByteArray or
// Bytes by whether a count follows.
var byName = func() map[string]Kind {
	m := make(map[string]Kind, numKinds)
	for k := Bool; k < numKinds; k++ {
		if k != Bytes {
			m[kinds[k].name] = k
		}
	}
	return m
}()

// ParseType parses a type string of schema.md section 3 ("uint:5",
// "vector3:13,9", "list:8"), filling in the game's default widths.
func ParseType(s string) (Type, error) {
	name, args, hasArgs := strings.Cut(s, ":")
	k, ok := byName[name]
	if !ok {
		return Type{}, fmt.Errorf("unknown type %q", s)
	}
	if k == ByteArray && hasArgs {
		k = Bytes
	}
	info := kinds[k]
	if !hasArgs {
		if info.args != 0 && !info.optional {
			return Type{}, fmt.Errorf("type %q needs %s", s, argsHelp(info))
		}
		return Type{Kind: k, A: info.def[0], B: info.def[1]}, nil
	}
	if info.args == 0 {
		return Type{}, fmt.Errorf("type %q takes no width", s)
	}
	parts := strings.Split(args, ",")
	if len(parts) != info.args {
		return Type{}, fmt.Errorf("type %q needs %s", s, argsHelp(info))
	}
	var v [2]int
	for i, p := range parts {
		n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || n < int64(info.lo[i]) || n > int64(info.hi[i]) {
			return Type{}, fmt.Errorf("type %q: width %q not in %d…%d", s, p, info.lo[i], info.hi[i])
		}
		v[i] = int(n)
	}
	t := Type{Kind: k, A: v[0], B: v[1]}
	if info.args == 2 && t.A+t.B == 0 {
		return Type{}, fmt.Errorf("type %q reads no bits", s)
	}
	return t, nil
}

func argsHelp(info kindInfo) string {
	if info.args == 2 {
		return info.name + ":I,F"
	}
	return info.name + ":N"
}

// Field is one field of a payload, a method parameter, a list item or an
// optional's item (schema.md section 3).
type Field struct {
	Name   string            // empty for list items and optional items
	Type   Type              // the parsed type
	Values map[uint32]string // enum:N names
	// Item is what a list or an optional holds. A list written with
	// fields = […] has a Struct item holding them, so decoders see one
	// shape.
	Item   *Field
	Fields []*Field // a struct's fields
	Line   int      // line in the schema file, 0 if unknown

	// top is "payload."+Name for a payload's top-level fields, set by
	// Parse so that decoding does not build the name for every payload.
	top string
}

// Message is one value of a listener's message enum (schema.md section 1).
type Message struct {
	Value  uint32
	Name   string
	RPC    bool     // RpcMessageListener's InvokeMethod action: a method follows
	Fields []*Field // nil for an RPC message
	Line   int
}

// Method is an RPC method of a listener side or a vanilla InvokeMethod
// entry (schema.md sections 1 and 2).
type Method struct {
	Index    int // position in the side's method list, or the vanilla index
	Name     string
	Instance bool // a NetID precedes the parameters
	Params   []*Field
	Line     int
}

// Side is one direction of a listener: the server side reads the C→S
// payloads (TServerMessage), the client side the S→C ones (TClientMessage).
type Side struct {
	// EnumBits is the width of the message enum: enum_bits if given,
	// otherwise CountBits(highest message value) (schema.md section 1).
	EnumBits int
	Messages []*Message // in file order
	Methods  []*Method  // index = position (schema.md section 1)
	Line     int

	byValue  map[uint32]*Message
	listener *Listener
}

// Message returns the message with enum value v, or nil.
func (s *Side) Message(v uint32) *Message { return s.byValue[v] }

// Listener is the schema of one USMN listener type (schema.md section 1).
type Listener struct {
	// Type is the Listener_Type_Name as written: "Sample.ChatListener,
	// Sample", or without the assembly, which matches any assembly.
	Type     string
	Versions []uint32 // nil: every version
	Server   *Side    // C→S payloads, or nil
	Client   *Side    // S→C payloads, or nil
	Line     int
	File     string // the file that defined it
	short    string // Name, computed once by Parse (decoding names every payload)
}

// Name is the short name used in findings and summaries: the type without
// namespace, assembly and a trailing "Listener" ("Sample.ChatListener,
// Sample" is "Chat"), as in issue 14's row summary `Chat.Say "hello"`.
func (l *Listener) Name() string {
	if l.short != "" {
		return l.short
	}
	return shortName(l.Type)
}

// shortName is Name for a listener type.
func shortName(typ string) string {
	t, _, _ := strings.Cut(typ, ",")
	t = strings.TrimSpace(t)
	if i := strings.LastIndexAny(t, ".+"); i >= 0 {
		t = t[i+1:]
	}
	if s := strings.TrimSuffix(t, "Listener"); s != "" {
		t = s
	}
	return t
}

// Covers reports whether the schema applies to version v.
func (l *Listener) Covers(v uint32) bool {
	if l.Versions == nil {
		return true
	}
	for _, x := range l.Versions {
		if x == v {
			return true
		}
	}
	return false
}

// Vanilla holds the InvokeMethod tables a file gives (schema.md section 2).
type Vanilla struct {
	ClientMethods []*Method // S→C InvokeMethod (EClientMessage)
	ServerMethods []*Method // C→S InvokeMethod (EServerMessage)
}

// ULinkRPC holds the service names and DTO types of schema.md section 4.
type ULinkRPC struct {
	Services []*Service
	Types    []*DTO
}

// Service is a ULinkRPC service: its id, name, request methods and pushes.
type Service struct {
	ID      int32 // service_id is a signed 32-bit integer (ulinkrpc.md 8)
	Name    string
	Methods []*ServiceMethod
	Pushes  []*Push
	Line    int
}

// ServiceMethod is a request method of a service. Reply is empty for a
// void (ValueTask) method, whose Response payload is empty.
type ServiceMethod struct {
	ID      int32
	Name    string
	Request string // a MemoryPack member type (see DTO)
	Reply   string
	Line    int
}

// Push is a server-to-client callback of a service.
type Push struct {
	ID   int32
	Name string
	Arg  string
	Line int
}

// DTO is a MemoryPack type (schema.md section 4).
type DTO struct {
	Name            string
	VersionTolerant bool // GenerateType.VersionTolerant: per-member byte lengths
	Members         []*Member
	Line            int
}

// Member is a DTO member. Type is a MemoryPack member type: one of bool
// byte sbyte short ushort int uint long ulong float double string,
// "list:T", or a declared DTO name.
type Member struct {
	Order int
	Name  string
	Type  string
	Line  int
}

// File is one parsed schema file.
type File struct {
	Name      string // as given to Parse
	Listeners []*Listener
	Vanilla   Vanilla
	ULinkRPC  ULinkRPC
}
