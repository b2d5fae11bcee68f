// Package feed is the Unturned side of the host's decode, as rpc/feed is
// ULinkRPC's: what Unturned's own packages ask of the host's index, through
// adapters that keep them from naming a session type. Today that is the
// profile search (unturned/infer), which reads a decode as infer.Decoded:
// Decoded wraps a session.Index, Head and Message give the search's view
// of the host's records, and Score tallies a whole index's heads on
// several cores for the profile hint (issue 13, issue 28).
//
// It sits over session and unturned/infer and under internal/pipeline,
// which builds the decodes it reads (the import-graph test in
// internal/pipeline places it).
package feed
