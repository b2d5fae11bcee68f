// Package pipeline is the one wiring of capture to the protocol decoders:
// it turns each capture.Event (a flow opened, bytes of one direction, a gap,
// a close, a note) into the matching call on a session.Index. The CLI, the
// TUI and the tests all feed captures through it, so there is one mapping of
// capture rules, directions and note levels to the decoder's vocabulary.
//
// capture knows no protocol and the decoders do no IO; this package is the
// only place, with cmd/usmnscope, that imports both (the import-graph test
// in this package holds every package to that).
package pipeline
