package unturned

import "testing"

// TestFormatSize: the largest binary suffix that divides the count, read
// back by ParseSize as the same count.
func TestFormatSize(t *testing.T) {
	for n, want := range map[int]string{0: "0", 1: "1", 1000: "1000", 1024: "1KiB", 1536: "1536", 64 << 10: "64KiB", 3 << 20: "3MiB", 1 << 30: "1GiB", 5<<30 + 1<<20: "5121MiB"} {
		got := FormatSize(n)
		if got != want {
			t.Errorf("FormatSize(%d) = %q; want %q", n, got, want)
		}
		if back, err := ParseSize(got); err != nil || back != n {
			t.Errorf("ParseSize(FormatSize(%d) = %q) = %d, %v", n, got, back, err)
		}
	}
}
