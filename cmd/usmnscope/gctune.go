package main

import "github.com/usmnscope/usmnscope/internal/gctune"

// The collector's tuning (internal/gctune) under the names the commands
// call it by.
var (
	tuneGC       = gctune.Start
	setTuning    = gctune.Set
	streamTuning = gctune.Stream
	dumpTuning   = gctune.Dump
)
