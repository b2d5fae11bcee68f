package gctune

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

// tuiHeadroom is the TUI's headroom (issue 7: at most 64 bytes a message
// for the TUI, which keeps its index). It was GOGC=5, 5% of the live heap:
// 2.6 MiB above 52 MiB at a million messages, but a collection every 5% of
// growth from the start, 800 cycles over a million-message load, each
// scanning the program's 5 MiB of pointerful globals (gopacket's layer
// tables): a fifth of the load's CPU (issue 18). A fixed 8 MiB costs a
// couple of dozen cycles and 1 MiB more peak RSS at 1M messages (VmHWM
// 71 MB against 17 MB for a small capture: 55 bytes a message).
const tuiHeadroom = 8 << 20

// streamHeadroom is dump's headroom: it keeps no index, so its live heap
// is a few MiB of buffers and batches, and its garbage comes at a steady
// rate. At the default the heap grew to twice its live bytes and roots
// (5 MiB of globals) only once a run was long enough for collections to
// settle, so the peak RSS grew with the capture (issue 18: 17.5 MiB at
// 200k messages, 22.7 at 4M); 4 MiB reaches the same heap from the start,
// for about one more cycle per million messages.
const streamHeadroom = 4 << 20

// Tuning is what Start keeps: the headroom and the least GOGC; with a
// share, the headroom is that share (in percent) of the live heap and
// roots, between headroom and most.
type Tuning struct {
	headroom uint64
	min      int
	share    uint64
	most     uint64
	least    uint64         // with it, the headroom is at most a quarter of the live heap, never below least
	read     func() float64 // Reading's
}

// Reading is t for a load whose progress read reports: the share of its
// input read so far, in (0, 1) while it loads (else t as it is). The heap
// at a load's end is about the live heap over that share, and t's
// headroom is what it may end with; until then the headroom is larger,
// by a quarter of the heap still to come, up to half the live heap, so
// that the early cycles are fewer without a higher peak: the TUI's fixed
// 8 MiB made some twenty cycles over a million-message load, each
// scanning the globals and slowing the decoder with write barriers
// (issue 28).
func (t Tuning) Reading(read func() float64) Tuning {
	t.read = read
	return t
}

// Stream is the tuning of the commands that keep no index (stats,
// export): streamHeadroom.
var Stream = Tuning{headroom: streamHeadroom, min: 10}

// Dump is dump's: dumpHeadroom, or a third of the live heap up to 16
// MiB. A ULinkRPC dump keeps some 30 MiB live (its records wait to be
// paired and printed) and allocates 2.8 KB a frame: at a fixed 4 MiB it
// collected every 1,500 frames, 55 % of its CPU at 1M frames (issue 28);
// an Unturned dump's few MiB keep dumpHeadroom. export keeps Stream: its
// Parquet writer's buffers beside issue 29's shapes stay further from
// their caps (2,048 gzip frames of 1 MiB with --hex: 144 MB, 164 with
// this).
var Dump = Tuning{headroom: dumpHeadroom, min: 10, share: 33, most: 16 << 20}

// dumpHeadroom is an Unturned dump's headroom: a 200k-message dump ends
// before its heap reaches live plus 4 MiB, a longer one settles there, so
// its peak RSS grew with the capture (issue 28: 1.10x from 200k to 4M
// messages); 3 MiB is about where the short one ends, for three more
// cycles at 4M messages (9 in all).
const dumpHeadroom = 3 << 20

var (
	gcMu   sync.Mutex
	gcTune = Tuning{headroom: gcHeadroom, min: 10}
	gcOnce sync.Once
	// The collector's goal is the live heap plus GOGC% of the live heap
	// and its roots, the stacks and globals (runtime/debug.SetGCPercent).
	gcSample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/globals:bytes"}, {Name: "/gc/scan/stack:bytes"}}
)

// Start keeps the collector's headroom near gcTune.headroom: after each
// cycle GOGC is set to the headroom as a percentage of the live heap,
// between gcTune.min and 100 (the command's least: below it the collector
// would run too often for the index's sake; small heaps keep the
// default). A GOGC or GOMEMLIMIT given in the environment wins. The
// records of the index hold no pointers, so a cycle costs little however
// large it is. Later calls do nothing.
func Start() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	gcOnce.Do(func() {
		var rearm func()
		rearm = func() {
			// A finalizer runs once after the cycle that finds its object
			// unreachable; making a new one each time hears of every cycle.
			runtime.SetFinalizer(new([16]byte), func(*[16]byte) {
				gcMu.Lock()
				defer gcMu.Unlock()
				retune()
				rearm()
			})
		}
		rearm()
	})
}

// retune sets GOGC from the live heap and gcTune; gcMu is held.
func retune() {
	metrics.Read(gcSample)
	var v [3]uint64
	for i, s := range gcSample {
		if s.Value.Kind() != metrics.KindUint64 {
			return
		}
		v[i] = s.Value.Uint64()
	}
	debug.SetGCPercent(gcTune.percent(v[0], v[1]+v[2]))
}

// Set makes t the tuning from now on and returns the one before
// (the TUI sets tuiHeadroom; benchmarks restore).
func Set(t Tuning) Tuning {
	gcMu.Lock()
	defer gcMu.Unlock()
	old := gcTune
	gcTune = t
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		retune()
	}
	return old
}

// percent is the GOGC that lets a heap of live bytes, with roots bytes of
// stacks and globals, grow by about t.headroom, between t.min and 100.
func (t Tuning) percent(live, roots uint64) int {
	if live+roots == 0 {
		return 100
	}
	h := t.headroom
	if t.share > 0 {
		h = min(t.most, max(h, (live+roots)*t.share/100))
	}
	if t.least > 0 {
		h = max(t.least, min(h, live/4))
	}
	if t.read != nil {
		if x := t.read(); x > 0 && x < 1 {
			h = max(h, min(live/2, h+uint64(float64(live)*(1-x)/(4*x))))
		}
	}
	return int(min(100, max(uint64(t.min), h*100/(live+roots))))
}

// TUI is the TUI's collector tuning (tuiHeadroom, least GOGC 1): the
// decoded capture is a large, long-lived and pointer-free index (cheap to
// mark), while showing messages makes short-lived garbage; at the default
// the heap may grow to twice the index before a collection, which doubles
// the resident set for nothing (issue 7: ≤ 64 bytes per message). Below
// 32 MiB live the headroom is a quarter of the live heap, not less than
// tuiLeast: a capture of 100k ULinkRPC frames keeps some 7 MiB, and a
// full 8 MiB above it was most of what its load added to the resident
// set (issue 28: 104 and 111 bytes a frame over WebSocket and KCP, for
// at most 96), for about as many cycles as before (13 to 15 a load of
// BenchmarkLoad at 100k WebSocket frames, 25 to 26 at 1M TCP frames).
var TUI = Tuning{headroom: tuiHeadroom, min: 1, least: tuiLeast}

// tuiLeast is the least headroom of the TUI: about what a small capture
// allocates from its start to its first frame, so that it is not
// collected more often than before.
const tuiLeast = 2 << 20
