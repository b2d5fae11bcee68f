// Package filter is the display-filter language of usmnscope (outputs.md
// "Display filter"): expressions such as `msg==InvokeMessageListener &&
// listener~Chat` or `severity>=warn`, compiled once by Parse into a Filter
// whose Match tests a session.Message. The TUI's filter bar and `dump
// --filter` share it.
//
// Fields that the session's index record already holds (n, dir, msg,
// severity, conn, len) are answered from it without decoding the message
// again (MatchHead); the others need the decoded message.
//
// With payload schemas (schema.md), payload_message, payload_method and
// payload.<field> (the names of the JSON fields; a list index may be left
// out: payload.items[].amount) test the decoded payload (payload.go).
//
// Errors are an *Error carrying the byte offset of the bad part, so the
// filter bar can point at it.
package filter
