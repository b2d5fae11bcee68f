// Package detail is the field-tree pane: the selected message's header,
// every decoded field with its bit offset and length (outputs.md "fields"),
// the listener resolution (wire.md 4.5) and the findings with severity and
// group. Groups expand and collapse; the expansion state lives here, keyed
// by node path, so it survives moving between messages.
//
// # Offsets
//
// Each field line starts "@bit+bits": the field's first bit from the
// message's bit 0 and its length, exactly what was read for it (outputs.md
// "fields"; a String covers flag, length, padding and bytes, wire.md 1.3).
// Strings from the wire are escaped.
//
// # ULinkRPC
//
// A ULinkRPC message shows rpc.Tree, the layer tree `dump -V` prints too
// (ulinkrpc.md's layering): transport, transform (its fields' spans are in
// the transformed frame, which the bits pane does not show), the envelope
// fields with their spans as 8 × byte offsets in the envelope, the payload
// members nested by name, the contract's names, status, error text, ticks
// and the pair, then the findings.
package detail
