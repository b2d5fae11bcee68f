package capture

// DefaultOptions returns the options a Source runs with when every field is
// left zero: the game and query ports of wire.md §6 and §2 and the bounds
// of SECURITY.md "Bounds". Callers that show or override the bounds (the
// CLI's --max-* flags and `profile show`) start from these, so that capture
// alone states its defaults.
func DefaultOptions() Options { return Options{}.withDefaults() }
