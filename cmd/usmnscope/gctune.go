package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// gcHeadroom is how far above the live heap the collector lets the heap
// grow before its next cycle. The runtime's default (GOGC=100: as much
// again as is live) makes a capture of millions of messages, whose index
// is live to the end, hold twice its index at its peak; output then
// allocates only short-lived buffers, so a fixed headroom bounds the
// peak at the index plus this (issue 17: 160 MB beside the index).
const gcHeadroom = 24 << 20

// tuneGC keeps the collector's headroom near gcHeadroom: after each cycle
// GOGC is set to gcHeadroom as a percentage of the live heap, between 10
// and 100 (below 10 the collector would run too often for the index's
// sake; small heaps keep the default). A GOGC or GOMEMLIMIT given in the
// environment wins. The records of the index hold no pointers, so a cycle
// costs little however large it is.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var rearm func()
	rearm = func() {
		// A finalizer runs once after the cycle that finds its object
		// unreachable; making a new one each time hears of every cycle.
		runtime.SetFinalizer(new([16]byte), func(*[16]byte) {
			gcMu.Lock()
			defer gcMu.Unlock()
			if gcFixed {
				return
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				debug.SetGCPercent(gcPercent(sample[0].Value.Uint64()))
			}
			rearm()
		})
	}
	rearm()
}

var (
	gcMu    sync.Mutex
	gcFixed bool // a command set its own GOGC (fixGC): tuneGC stops
)

// fixGC sets GOGC to percent for the rest of the run, ending tuneGC.
func fixGC(percent int) {
	gcMu.Lock()
	defer gcMu.Unlock()
	gcFixed = true
	debug.SetGCPercent(percent)
}

// gcPercent is the GOGC that lets a heap of live bytes grow by about
// gcHeadroom, between 10 and 100.
func gcPercent(live uint64) int {
	if live == 0 {
		return 100
	}
	return int(min(100, max(10, uint64(gcHeadroom)*100/live)))
}
