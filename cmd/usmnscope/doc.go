// Command usmnscope inspects Unturned SystemSockets traffic, USMN module
// messages and ULinkRPC calls. See README.md and docs/ (the user's
// reference: commands, JSON keys, schemas, profiles).
//
// # Commands
//
// dump prints the decoded messages of a capture (one line each, -V field
// trees with bit strings and the message hex, -x hex and ASCII as tshark -x,
// --json NDJSON, every key in docs/json.md);
// tables prints the per-connection listener-ID tables (docs/protocol.md);
// bits decodes one message pasted as hex; profile show prints the profile
// (docs/profile.md) and profile infer the one that best explains a capture
// (unturned/infer); open and live run the TUI, which an idle flush
// (internal/tuifeed) keeps within 100 ms of what has arrived; gen and simulate
// write fixture captures. --decode-as names the protocol of a TCP port
// (internal/pipeline's registry, docs/protocol.md).
//
// # Wiring
//
// root.go builds the command tree: every command is added there, by a
// constructor newCmdX(streams, runF) in the command's own file that returns
// the command, fills an options struct (its flags and IO streams) and calls
// runF when a test passes one, else runX (cli/cli's NewCmdX). main.go only
// calls Execute. A command turns its flags into pipeline.Options and calls
// pipeline.Open, the one decode builder (source, capture options, index,
// store), whose Feed is the one path from capture.Source events to
// session.Index, used by the CLI and the TUI alike; a recover there turns
// a decoder panic into an error finding (style.md). The text outputs are
// render's.
//
// # Output rules
//
// Wire strings in text output are escaped (termsafe.Escape) so they cannot
// drive the terminal; JSON keeps them exact. Exit status follows docs/cli.md:
// 0 success (findings included), 1 unreadable input, 2 usage. A usage
// error names what is wrong in words and is followed by the command's
// usage line; an unknown command by the ones it may have meant
// (internal/usage; the aliases in usage.go).
//
// # Signals and IO faults
//
// A closed stdout (`dump | head`) ends the command quietly with status 0:
// SIGPIPE is ignored, so the write fails with EPIPE, which Execute does not
// report. Output that cannot be written otherwise (`dump > /dev/full`) is
// status 1 with one line naming the output and the cause. Ctrl-C, SIGINT,
// SIGTERM or SIGHUP stop open and live as q does (the terminal restored,
// status 0), live once its --write file is flushed and closed; a --write that failed (a full disk) or an interface that went
// away is status 1 with one line, the packets saved before kept as a valid
// pcapng. A capture cut mid-record is read up to the cut, the cut a
// finding, status 0. signals_test.go checks each on the built binary.
package main
