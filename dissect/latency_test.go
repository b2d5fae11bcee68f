package dissect

import (
	"testing"
	"time"
)

// TestLatencyText: the millisecond text and the JSON object every
// protocol's latencies and the ping round trips are written with.
func TestLatencyText(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want string
	}{{0, "0.00 ms"}, {210 * time.Microsecond, "0.21 ms"}, {1500 * time.Millisecond, "1500.00 ms"}} {
		if got := FormatLatency(tc.in); got != tc.want {
			t.Errorf("FormatLatency(%v) = %q; want %q", tc.in, got, tc.want)
		}
	}
	var d Durations
	if got := string(LatencyOf(&d).AppendJSON(nil)); got != "null" {
		t.Errorf("AppendJSON of nothing = %s; want null", got)
	}
	for _, x := range []time.Duration{3, 1, 2} {
		d.Add(x)
	}
	l := LatencyOf(&d)
	l.Summary.Count = 0 // min/median/max only
	if got, want := string(l.AppendJSON(nil)), `{"min":1,"median":2,"max":3}`; got != want {
		t.Errorf("AppendJSON = %s; want %s", got, want)
	}
}
