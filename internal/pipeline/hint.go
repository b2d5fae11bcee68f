package pipeline

import (
	"os"

	"github.com/usmnscope/usmnscope/capture"
)

// The profile hint's and profile infer's share of the host: the sample of
// a capture they record and the work they may spend. The search itself
// is Unturned's (unturned/infer); register.go adapts the host's decode to
// it (Inferred) and runs it (Infer, Hint).

// InferSample bounds the event data profile infer holds in memory and
// decodes (twice: under the active profile and the inferred one; the
// search reads a sample of its messages, infer.RunBounded): the start of a
// capture, where the handshake and the definitions are, is what decides
// the constants. 512 KiB is some 50,000 small messages.
const InferSample = 512 << 10

// SearchedKiB is what the report of profile infer says of a recording
// Infer made: the KiB of the capture's data searched when the recording
// stopped at InferSample, else 0 (all of it was).
func SearchedKiB(rec *Recording) int {
	if rec.Truncated {
		return InferSample >> 10
	}
	return 0
}

// Hint bounds: the sample a dump or tables spends, only when the active
// profile decodes a capture badly, on finding whether another profile
// decodes it cleanly, and the candidate profiles the search reads it under
// (infer.RunBounded: two decodes of the sample's start, each candidate
// reading at most a few thousand messages of it).
const (
	hintSample     = 256 << 10
	hintCandidates = 5000
)

// The hint's time is bounded by the work it may do (issue 29: at most a
// tenth of the load and 1 s), counted in message decodes as
// infer.RunBudget counts them. The search reads a message 3–5 times
// faster than a load decodes one (measured on this 2-core machine: 1.3–2.9
// million readings a second; dump --json 0.57 million messages, tables
// --json more), so 3/10 of the load's messages stay within a tenth of its
// time, and 1,000,000 readings within 1 s. A capture the profile decodes
// badly hands out few messages for its bytes (the 19.5 MB load of 200,000
// messages gives 26,807 under a wrong profile, in the same 0.9 s of CPU),
// so the load is also counted by its bytes: a reading per 128 bytes of
// the file, under a tenth of the load's time at the rates above. Below
// 30,000 readings (10–25 ms, less than starting the process) a small
// capture is searched as before. The sample it records is at most a
// twentieth of the file: its two decodes count in the bound too.
const (
	HintMaxDecodes = 1_000_000
	HintMinDecodes = 30_000
	hintMinSample  = 64 << 10
)

// HintBudget is the message decodes the hint may spend after a load that
// handed out messages from a file of size bytes.
func HintBudget(messages int, size int64) int {
	return min(HintMaxDecodes, max(HintMinDecodes, messages*3/10, int(min(size/128, HintMaxDecodes))))
}

// hintSampleBytes is the capture data the hint records from a file of
// size bytes.
func hintSampleBytes(size int64) int {
	return int(min(hintSample, max(hintMinSample, size/20)))
}

// hintRecording records the start of the capture at path with opts for
// the hint's search (hintSampleBytes of the file), and says the file's
// size; false when it cannot be opened.
func hintRecording(path string, opts capture.Options) (*Recording, int64, bool) {
	src, err := capture.Open(path, opts)
	if err != nil {
		return nil, 0, false
	}
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	rec := Record(src, hintSampleBytes(size))
	src.Close()
	return rec, size, true
}
