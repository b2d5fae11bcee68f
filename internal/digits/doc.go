// Package digits writes the numbers of the JSON and text outputs straight
// into the caller's buffer: integers in decimal two digits at a time
// (AppendUint, AppendInt: strconv's AppendInt formats into a buffer of its
// own and copies it, and `dump --json` writes some forty integers a
// record), fixed-width zero-padded digits (AppendPadded: a time's
// nanoseconds) and lower-case hex four bytes at a time (AppendHex, as
// hex.AppendEncode). It is the one place these are spelled (issue 28); it
// has no module imports.
package digits
