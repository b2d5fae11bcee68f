package pipeline_test

import (
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestDefaultBounds: the joined defaults are SECURITY.md's bounds table
// (1 MiB, 64 MiB, 10,000 flows, 65,535 bytes, 65,536 entries, 4,096
// references), the capture share taken from capture, the rest from
// unturned.
func TestDefaultBounds(t *testing.T) {
	want := unturned.Bounds{
		MaxFlowBuffer:   1 << 20,
		MaxTotalBuffer:  64 << 20,
		MaxFlows:        10000,
		MaxMessage:      65535,
		MaxTableEntries: 65536,
		MaxUnresolved:   4096,
		MaxFindings:     1000,

		MaxFragments:         16384,
		MaxFragmentBytes:     4 << 20,
		MaxFragmentDatagrams: 1024,
		MaxInterfaces:        1024,
		MaxNotes:             1000,
		MaxDecompressed:      4 << 30,

		MaxRPCBuffer: 32 << 20,
		MaxInflate:   1 << 20,
	}
	if got := pipeline.DefaultBounds(); got != want {
		t.Errorf("DefaultBounds() = %+v; want %+v", got, want)
	}
	d := capture.DefaultOptions()
	if got := pipeline.DefaultBounds(); int(got.MaxFlowBuffer) != d.MaxBufferedPerFlow || int(got.MaxTotalBuffer) != d.MaxBufferedTotal || got.MaxFlows != d.MaxFlows {
		t.Errorf("DefaultBounds() = %+v; want capture's defaults %+v", got, d)
	}
}

func TestCaptureBounds(t *testing.T) {
	// frag: the capture bounds added for issue 17 at capture's defaults.
	frag := func(b unturned.Bounds) unturned.Bounds {
		b.MaxFragments, b.MaxFragmentBytes, b.MaxFragmentDatagrams = 16384, 4<<20, 1024
		b.MaxInterfaces, b.MaxNotes, b.MaxDecompressed = 1024, 1000, 4<<30
		return b
	}
	tests := []struct {
		in, want unturned.Bounds
	}{
		{unturned.Bounds{}, frag(unturned.Bounds{MaxFlowBuffer: 1 << 20, MaxTotalBuffer: 64 << 20, MaxFlows: 10000})},
		{unturned.Bounds{MaxFlowBuffer: 7, MaxMessage: 9}, frag(unturned.Bounds{MaxFlowBuffer: 7, MaxTotalBuffer: 64 << 20, MaxFlows: 10000, MaxMessage: 9})},
		{unturned.Bounds{MaxFlowBuffer: 1, MaxTotalBuffer: 2, MaxFlows: 3}, frag(unturned.Bounds{MaxFlowBuffer: 1, MaxTotalBuffer: 2, MaxFlows: 3})},
		{unturned.Bounds{MaxNotes: 5, MaxDecompressed: 6}, func() unturned.Bounds {
			b := frag(unturned.Bounds{MaxFlowBuffer: 1 << 20, MaxTotalBuffer: 64 << 20, MaxFlows: 10000})
			b.MaxNotes, b.MaxDecompressed = 5, 6
			return b
		}()},
	}
	for _, tt := range tests {
		if got := pipeline.CaptureBounds(tt.in); got != tt.want {
			t.Errorf("CaptureBounds(%+v) = %+v; want %+v", tt.in, got, tt.want)
		}
	}
}
