// Package jsontime spells outputs.md's "time": RFC 3339 in UTC with all
// nine nanosecond digits, as time.Time.Format(Layout) spells it, digit by
// digit, and a Cache that keeps the text of the last second for the
// times that share it. Every record's JSON (the host's and each
// protocol's) spells its time here.
package jsontime
