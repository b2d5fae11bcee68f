package iograph

import (
	"strings"
	"testing"
	"time"
)

func TestInterval(t *testing.T) {
	for _, tt := range []struct {
		span time.Duration
		cols int
		want time.Duration
	}{
		{500 * time.Millisecond, 71, 10 * time.Millisecond},
		{500 * time.Millisecond, 151, 5 * time.Millisecond},
		{90 * time.Second, 70, 2 * time.Second},
		{0, 10, time.Millisecond},
	} {
		if got := Interval(tt.span, tt.cols); got != tt.want {
			t.Errorf("Interval(%v, %d) = %v; want %v", tt.span, tt.cols, got, tt.want)
		}
	}
}

func TestLinesFitAndCount(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var pts []Point
	for i := 0; i < 100; i++ {
		pts = append(pts, Point{T: t0.Add(time.Duration(i) * 100 * time.Millisecond), Bytes: i})
	}
	lines := Lines(pts, 80, 21)
	if len(lines) > 21 {
		t.Errorf("%d lines for 21 rows", len(lines))
	}
	for _, l := range lines {
		if n := len([]rune(l.Text)); n > 80 {
			t.Errorf("line of %d runes: %q", n, l.Text)
		}
	}
	if !strings.Contains(lines[0].Text, "(100 messages)") {
		t.Errorf("title %q", lines[0].Text)
	}
}
