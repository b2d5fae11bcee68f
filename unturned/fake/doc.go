// Package fake builds synthetic decoded Unturned captures for the views'
// tests and benchmarks, as views/fake's Source holds them: a small
// capture with a vanilla and a USMN connection built bit by bit after
// wire.md 4.3, hostile strings, and a generator of arbitrarily many
// messages that stores none of them. The messages are session.Messages
// with their Unturned parts (enum, kind, listener), which is why they are
// built here, beside the protocol, and not in views/fake, which names no
// protocol.
package fake
