// Package report attributes a capture's bytes and time the way a game
// engine's network profiler does: outputs.md "usmnscope stats". It adds up
// neutral Records (record.go) into groups by connection, direction,
// message kind, USMN listener, payload message or method, with each
// message's bits split exactly into framing, header, definition, payload
// and padding, the mean and peak rate per interval, a time series, the
// latency of every pair (Unturned pings and listener-ID requests, ULinkRPC
// requests per method and keep-alives) and findings for the outliers a
// user cares about.
//
// # The adapter
//
// The host (session) hands out its messages as session.Message; the one
// file that knows that type is adapter.go, which turns each into a Record.
// Everything else here sees Records only, so that when the host hands out
// a protocol-neutral record instead only the adapter changes. A hosted
// protocol's record is read through decode's facts (Framed, Caller), the
// host's own messages through session.Role: the adapter names no
// protocol's types.
//
// # The bit split
//
// The split is made from the same field spans the field tree and the
// hexdump draw (netpak spans for Unturned, the envelope's fields for
// ULinkRPC): each bit of the message goes to the part of the first span in
// wire order that covers it (nested spans such as payload.<member> lie
// inside their parent and add nothing); bits no span covers are padding.
// The parts add up to 8 × the message's bytes on the stream by
// construction (Split.Total). See Classify for which span is which part.
//
// # Memory
//
// A Report keeps one entry per group and per latency key, with each
// group's current and peak interval, and one series point per interval
// that has messages: its memory follows the groups, the distinct
// latencies and the capture's duration, not the messages.
package report
