package pipeline

import (
	"strconv"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/unturned"
)

// DefaultBounds returns the default [limits] of a profile (SECURITY.md
// "Bounds") with every bound stated: the decoder's share as unturned states
// it, the capture layer's share as capture states it (capture.DefaultOptions).
// unturned.DefaultBounds leaves the capture share zero, since unturned does
// not import capture; this is where the two meet.
func DefaultBounds() unturned.Bounds { return CaptureBounds(unturned.DefaultBounds()) }

// CaptureBounds returns b with each capture bound that is zero ("capture's
// default") set to capture's default, so that what the CLI shows (profile
// show, the --max-* defaults) is what the capture runs with. Bounds that are
// set are kept.
func CaptureBounds(b unturned.Bounds) unturned.Bounds {
	d := capture.DefaultOptions()
	if b.MaxFlowBuffer == 0 {
		b.MaxFlowBuffer = unturned.Size(d.MaxBufferedPerFlow)
	}
	if b.MaxTotalBuffer == 0 {
		b.MaxTotalBuffer = unturned.Size(d.MaxBufferedTotal)
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&b.MaxFlows, d.MaxFlows)
	def(&b.MaxFragments, d.MaxFragments)
	def((*int)(&b.MaxFragmentBytes), d.MaxFragmentBytes)
	def(&b.MaxFragmentDatagrams, d.MaxFragmentDatagrams)
	def(&b.MaxInterfaces, d.MaxInterfaces)
	def(&b.MaxNotes, d.MaxNotes)
	def((*int)(&b.MaxDecompressed), int(d.MaxDecompressed))
	return b
}

// DefaultBound is the built-in default of the [limits] key (DefaultBounds),
// 0 for a key there is none of.
func DefaultBound(key string) int {
	n, _ := DefaultBounds().Get(key)
	return n
}

// ParseBound reads s as a value of the [limits] key, a --max-* flag's: a
// byte count that takes the KiB/MiB/GiB suffixes of a profile's sizes when
// size says so, else an integer, in the key's range.
func ParseBound(key string, size bool, s string) (int, error) {
	var (
		n   int
		err error
	)
	if size {
		n, err = unturned.ParseSize(s)
	} else {
		n, err = strconv.Atoi(s)
	}
	if err != nil {
		return 0, err
	}
	probe := unturned.DefaultBounds()
	if err := probe.Set(key, n); err != nil {
		return 0, err
	}
	return n, nil
}

// FormatBound is the text of a bound's value as ParseBound reads it back:
// a size as a profile writes it, else the integer.
func FormatBound(size bool, v int) string {
	if size {
		return unturned.FormatSize(v)
	}
	return strconv.Itoa(v)
}
