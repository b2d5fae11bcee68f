// Package track keeps one Unturned connection's state as its host feeds
// it (issue 23: beside the codec, not in the host): the SystemSockets
// framing of each direction with the stamps of the chunks its bytes came
// in (wire.md 2), the handshake's markers and the widening they decide
// (wire.md 4.2), the Serverside_ID_Bit_Count in force (wire.md 4.3), the
// inferences of both when the handshake was not captured (wire.md 4.6:
// the messages they decide are held, decoded tentatively, and decoded
// again once they settle), the listener-ID tables with their as-of
// checkpoints (unturned/listeners, wire.md 4.5) and the pairing of pings
// and listener-ID requests (unturned/pair).
//
// # Host
//
// The host (session.Index) numbers the messages of every protocol in one
// capture-wide order and keeps their records; a Conn names a message by
// its record index (its number less one). The host feeds a Conn through
// decode.Feed (Bytes, Gap, End, Holding, Abandon; Chunk is Bytes for a
// host that calls the Conn's type on every chunk, the stamp's fields as
// arguments) and hands back each framed message it numbers (Arrive,
// Pending, then Numbered; a host may decode a message that does not wait
// itself and apply it with Commit, the cheaper path); the Conn asks the
// host through Host for what only the host has: a message's kept bytes,
// its decoding into the host's record (a stream keeps that decoding for
// its output), the findings and listener a record gets (Listener only
// for a host that keeps names, Capture.SetNames), and its pairing. A
// host may keep a Conn inside a struct of its own (Capture.Init), so that
// its per-connection state and the Conn are one allocation.
//
// # Capture
//
// What a capture's Unturned connections share is a Capture: the profile
// and limits, the host's interning of listener type names, whether the host keeps history (a full index: checkpoints
// of the tables, ping statistics as of a message), and the framers'
// buffer budget (max_total_buffer): past it the largest partial messages
// of all connections are dropped, each with a finding on its connection
// (SECURITY.md "Bounds", issue 17).
package track
