// Package tuifeed feeds a decode to the terminal UI: the capture is read
// in a goroutine, started before the UI is built, and the UI is told of it
// only as messages (Program.Send through a relay, style.md "IO reaches the
// TUI only as messages"): progress throttled to 10-20 Hz with an idle
// flush (issue 13 point 3: the last events of a burst show within 100
// ms), live packet rates once a second, and a final message when the
// input ends. It knows no protocol: the decode is a function it runs
// (pipeline.Decode's Feed).
//
// Open is `usmnscope open`'s run of the UI over a decode (its keys, its
// collector tuning, its name for several captures); the UI's part of the
// config file (columns, theme, keys, copy command) is read and saved here
// too (FileConfig, ShowConfig), where the filter language's field lookup
// meets the views.
package tuifeed
