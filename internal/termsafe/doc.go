// Package termsafe is the one escaping rule of usmnscope for text that
// reaches a terminal, and the JSON string rule beside it.
//
// A string from the wire (a listener type name, a kick reason, a capture
// note) may hold escape sequences, C1 controls, bidi overrides or invalid
// UTF-8. Escape writes each such rune as a Go escape (\x1b, \u009b,
// \u202e) and doubles backslashes, so the text can never move the cursor,
// retitle the window or reorder a line. Escaped is the same rule for text
// built around strings Escape already escaped (message summaries, finding
// texts): it keeps backslashes, so those escapes stay single. The JSON rule (AppendJSONString,
// EscapeJSON) spells strings exactly as encoding/json does and then writes
// the runes a terminal would act on as \uXXXX, which is the same JSON string
// (outputs.md: wire strings "escaped by the JSON encoder, never altered").
//
// Every output path (dump, dump -V, tables, the TUI, capture notes, JSON)
// goes through this package; no other package decides what is safe.
package termsafe
