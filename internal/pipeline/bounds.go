package pipeline

import (
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
