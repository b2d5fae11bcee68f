package gctune

import "testing"

// TestPercent: the GOGC a tuning sets for a live heap and its roots.
func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, tt := range []struct {
		name       string
		tune       Tuning
		live, root uint64
		want       int
	}{
		{"nothing live", Dump, 0, 0, 100},
		{"dump, small heap: 3 MiB of 2", Dump, 1 * mib, 1 * mib, 100},
		{"dump, 8 MiB: 3 MiB", Dump, 4 * mib, 4 * mib, 37},
		{"dump, 10 MiB: a third (33 %, rounded down)", Dump, 5 * mib, 5 * mib, 32},
		{"dump, 30 MiB: a third (33 %, rounded down)", Dump, 25 * mib, 5 * mib, 32},
		{"dump, 60 MiB: 16 MiB at most", Dump, 55 * mib, 5 * mib, 26},
		{"dump, 400 MiB: the least GOGC", Dump, 395 * mib, 5 * mib, 10},
		{"stream, 30 MiB: 4 MiB", Stream, 25 * mib, 5 * mib, 13},
		{"tui, 100 MiB: 8 MiB", TUI, 95 * mib, 5 * mib, 8},
		{"default, 48 MiB: 24 MiB", Tuning{headroom: gcHeadroom, min: 10}, 43 * mib, 5 * mib, 50},
		{"tui loading, a tenth read: half the live heap", TUI.Reading(func() float64 { return 0.1 }), 45 * mib, 5 * mib, 45},
		{"tui loading, half read: 8 MiB and a quarter of the 40 MiB to come", TUI.Reading(func() float64 { return 0.5 }), 40 * mib, 5 * mib, 40},
		{"tui loading a tenth, small heap: a quarter of it and up to half more", TUI.Reading(func() float64 { return 0.1 }), 12 * mib, 4 * mib, 37},
		{"tui loading nine tenths, small heap: a quarter of it and a little more", TUI.Reading(func() float64 { return 0.9 }), 12 * mib, 4 * mib, 20},
		{"tui, 12 MiB live: a quarter of it", TUI, 12 * mib, 5 * mib, 17},
		{"tui, 6 MiB live: 2 MiB at least", TUI, 6 * mib, 5 * mib, 18},
		{"tui, 32 MiB live: 8 MiB", TUI, 32 * mib, 5 * mib, 21},
		{"tui loaded: 8 MiB", TUI.Reading(func() float64 { return 1 }), 95 * mib, 5 * mib, 8},
		{"tui, share unknown: 8 MiB", TUI.Reading(func() float64 { return -1 }), 95 * mib, 5 * mib, 8},
	} {
		if got := tt.tune.percent(tt.live, tt.root); got != tt.want {
			t.Errorf("%s: percent(%d, %d) = %d; want %d", tt.name, tt.live, tt.root, got, tt.want)
		}
	}
}
