// Package schema reads the payload schema language of
// ../shared/spec/schema.md and decodes, with it, what the wire does not
// describe: the payloads of USMN listeners, the parameters of vanilla
// InvokeMethod calls, and the names and DTO types of ULinkRPC services.
//
// It is a pure library: Parse takes a file's bytes, decoders take a
// *netpak.Reader, and nothing here reads files, captures or terminals.
//
// # Files and sets
//
// Parse validates one TOML file exactly as schema.md describes it: the
// [[listener]] tables of section 1 (type, versions, the server and client
// sides with their message enums, enum_bits, rpc = true messages and their
// methods), the [[vanilla.client_method]] and [[vanilla.server_method]]
// tables of section 2, every field type of section 3, and the ULinkRPC
// services and MemoryPack types of section 4. Every problem is an Error
// naming the file, the line and the key path
// ("listener[0].server.message[1].fields[0].type"); BurntSushi/toml does
// not expose key positions, so the lines come from a second pass over the
// source (position.go). File.Defines lists what a file defines, for
// `usmnscope schema check`.
//
// A Set holds every file in force. It finds a listener's schema by its
// Listener_Type_Name and version (a schema written without the assembly
// matches any assembly; a version outside `versions` yields a note and no
// schema), a vanilla method by direction and index, and ULinkRPC services
// and types.
//
// # Decoding
//
// Listener.Decode, Side.Decode and Method.Decode read a payload into
// dissect.Fields with exact bit spans, named as schema.md section 3 says:
// payload.message (the listener's enum), payload.method and
// payload.instance for RPCs, then payload.<field>, payload.<struct>.<field>,
// payload.<list>[i].<field> and payload.<list>[i]. A list has an entry of
// its own, valued by its count and covering count and items; an optional
// is one entry at its flag; an align's bits go to the next field. Scalar
// values follow netpak.Span (bool, uint64, int64, float64, string, []byte,
// nil); enums are their names, guids and datetimes their canonical
// strings, and vectors, quaternions, colours and transforms are Vec3,
// Quat, RGBA and TransformRef, which marshal to the JSON objects schema.md
// names.
//
// Findings follow schema.md section 3: a payload shorter than its schema is
// an error naming the field and the bits ("schema Chat.Say: hello: need 8
// bits at bit 37, have 4"), and the fields before it are kept; up to 7
// trailing zero bits are padding, non-zero ones a warning, more bits a
// warning with their count; an enum value the schema does not list is a
// warning. Non-zero alignment padding and invalid UTF-8 are errors on a
// value that is still shown.
//
// # Bounds
//
// Decoding never panics and its work is bounded whatever the schema and
// payload: nesting is at most MaxDepth levels (Parse refuses deeper
// schemas and the decoder stops there too), a payload yields at most
// MaxFields fields, and a step counter stops lists of zero-width items
// that claim billions of entries.
//
// # Encoding
//
// Listener.Encode, Method.Encode and EncodeFields write payloads from
// values given by name, for the scenario generator. The encoder accepts
// every value the decoder produces, so a decoded payload written back
// gives the same bits; values written fresh come back within the step of
// wire.md 1.3's formulas for the quantised types.
package schema
