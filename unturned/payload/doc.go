// Package payload decodes the payloads of Unturned messages with the
// payload schemas (schema.md): the payload of a USMN invoke whose listener
// (type, version) has a schema, and the parameters of a vanilla
// InvokeMethod whose index has one. Decode gives the schema's fields, its
// findings and the name a row summary starts with; Summary writes that
// summary (`Chat.Say "hello" · srv#0 …`).
//
// What listener an invoke belongs to is the host's to say (its listener
// tables may resolve a reference after it was decoded): the caller passes
// it in. Nothing here keeps state from message to message but a Scratch.
//
// It sits over the Unturned codec and the schema language and under
// session, which shows the messages (the import-graph test in
// internal/pipeline places it).
package payload
