package pipeline

import "time"

// IdleFlush is how long an input that may wait (standard input, a pipe)
// is quiet before what has arrived is shown: issue 13 point 3 for the TUI,
// whose refresh ticks at it, and issue 24 point 3 for dump and tables, both
// under the 100 ms the issues ask. A streaming Index (dump, tables) reads a
// source opened with capture.Options.Quiet at it: when the input pauses,
// the source says so (capture.ErrQuiet, after the data TCP reassembly held
// behind a hole) and FeedRPC tells the Index (session.Index.Quiet), which
// hands out what has arrived and has its Stream's Quiet flush the output;
// a Stream cut meanwhile (tables --at N) ends the feed without waiting for
// input that may never come.
const IdleFlush = 50 * time.Millisecond
