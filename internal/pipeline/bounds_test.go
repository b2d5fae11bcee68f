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
	tests := []struct {
		in, want unturned.Bounds
	}{
		{unturned.Bounds{}, unturned.Bounds{MaxFlowBuffer: 1 << 20, MaxTotalBuffer: 64 << 20, MaxFlows: 10000}},
		{unturned.Bounds{MaxFlowBuffer: 7, MaxMessage: 9}, unturned.Bounds{MaxFlowBuffer: 7, MaxTotalBuffer: 64 << 20, MaxFlows: 10000, MaxMessage: 9}},
		{unturned.Bounds{MaxFlowBuffer: 1, MaxTotalBuffer: 2, MaxFlows: 3}, unturned.Bounds{MaxFlowBuffer: 1, MaxTotalBuffer: 2, MaxFlows: 3}},
	}
	for _, tt := range tests {
		if got := pipeline.CaptureBounds(tt.in); got != tt.want {
			t.Errorf("CaptureBounds(%+v) = %+v; want %+v", tt.in, got, tt.want)
		}
	}
}
