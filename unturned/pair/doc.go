// Package pair is Unturned's pairing of one connection's messages
// (outputs.md "Pairing"): a PingResponse answers the oldest unanswered
// PingRequest of the opposite direction, a TellClientListenerId or
// TellClientMissingListener the oldest unanswered RequestServerListenerId
// of its Clientside_Listener_ID (wire.md 3 and 4.4), and the ping
// statistics of `tables --json` ("ping").
//
// A State is fed each message of its connection in the connection's
// order (Message) and says what the message is to the pairing (a Step):
// an asker, the answer of an earlier asker with the latency, or neither.
// Where the host keeps a message's pair is the host's business; the State
// keeps the negotiate pairs it is given (Link), which a host's compact
// record has no room for.
//
// It sits over the Unturned codec and under session, which hosts the
// messages and calls it from its commit (the import-graph test in
// internal/pipeline places it).
package pair
