package unturned

import (
	"strings"
	"testing"
)

// TestCaptureShareUnset: the capture layer's bounds are zero ("capture's
// default") unless a file sets them; TOML leaves a zero one out, so a
// default profile reads back the same, and a file that sets one to zero is
// refused like any other bound out of range.
func TestCaptureShareUnset(t *testing.T) {
	tests := []struct {
		in   string
		want Bounds // applied over DefaultBounds' decoder share
		err  string
	}{
		{"", Bounds{}, ""},
		{"[limits]\nmax_flows = 3\n", Bounds{MaxFlows: 3}, ""},
		{"[limits]\nmax_flow_buffer = \"1MiB\"\nmax_total_buffer = 2\n", Bounds{MaxFlowBuffer: 1 << 20, MaxTotalBuffer: 2}, ""},
		{"[limits]\nmax_flows = 0\n", Bounds{}, "limits.max_flows: 0 is below 1"},
		{"[limits]\nmax_total_buffer = 0\nmax_unresolved = 0\n", Bounds{}, "limits.max_total_buffer: 0 is below 1"},
	}
	for _, tt := range tests {
		p, err := ParseProfile("b.toml", []byte(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseProfile(%q) = %v; want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseProfile(%q) = %v; want nil", tt.in, err)
			continue
		}
		want := DefaultBounds()
		want.MaxFlowBuffer, want.MaxTotalBuffer, want.MaxFlows = tt.want.MaxFlowBuffer, tt.want.MaxTotalBuffer, tt.want.MaxFlows
		if p.Bounds != want {
			t.Errorf("ParseProfile(%q).Bounds = %+v; want %+v", tt.in, p.Bounds, want)
		}
		back, err := ParseProfile("b.toml", []byte(p.TOML()))
		if err != nil || *back != *p {
			t.Errorf("ParseProfile(%q).TOML() reads back as %+v, %v; want %+v", tt.in, back, err, p)
		}
	}
	if err := Default().Validate(); err != nil {
		t.Errorf("Default().Validate() = %v; want nil (zero capture bounds are capture's default)", err)
	}
	var b Bounds = DefaultBounds()
	if err := b.Set("max_flows", 0); err == nil {
		t.Errorf("Set(max_flows, 0) = nil; want an error: zero is only the unset default")
	}
}
