package feed

// SetScoreSplit sets the index size from which Score tallies in parts, and
// returns the one it replaced (a test's).
func SetScoreSplit(n int) int { old := scoreSplit; scoreSplit = n; return old }
