package frame

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Line cuts s (which may hold styling) to w display cells and pads it with
// spaces to exactly w.
func Line(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = ansi.Truncate(s, w, "…")
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// Block returns lines fitted to w×h: each line through Line, missing lines
// blank, extra lines dropped.
func Block(lines []string, w, h int) string {
	if h <= 0 {
		return ""
	}
	var b strings.Builder
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		s := ""
		if i < len(lines) {
			s = lines[i]
		}
		b.WriteString(Line(s, w))
	}
	return b.String()
}

// Scroll returns the first visible row that keeps cursor inside a window of
// h rows starting at offset, moving the window as little as possible.
func Scroll(offset, cursor, h, n int) int {
	if h <= 0 {
		return 0
	}
	if cursor < offset {
		offset = cursor
	}
	if cursor >= offset+h {
		offset = cursor - h + 1
	}
	if max := n - h; offset > max {
		offset = max
	}
	if offset < 0 {
		offset = 0
	}
	return offset
}
