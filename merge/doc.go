// Package merge reads several captures as one (docs/json.md "Several
// captures"): a capture.Source that merges the events of several sources
// in time order, each capture's clock aligned to the first's, so that one
// decode numbers the messages of all of them once.
//
// Captures of the same connection from its two ends (the same 4-tuple,
// and the same bytes at the same stream positions) are one connection:
// Plan scans the captures first, matches their connections, and from the
// segments both ends captured estimates each capture's clock offset and
// drift against the first capture's, NTP-style (a segment's time on its
// receiver's clock minus its time on its sender's is the offset plus the
// one-way delay in one direction and the offset minus it in the other),
// with the bound the two directions leave. The merged Source then hands
// each byte of a merged connection on once, from the capture that saw it
// first, and Merged says for each message where else it was seen, its
// one-way delay and which capture lacks it. Two captures whose copies of
// a connection disagree on bytes are not merged: the first capture's copy
// is decoded and a finding shows both copies' bytes side by side.
//
// The package does no decoding: it knows capture events and stream
// positions only.
package merge
