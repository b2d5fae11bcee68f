// Package views is usmnscope's terminal UI: a root model that lays out and
// routes between panes over a Source (a *session.Index being fed by
// another goroutine, or a synthetic source in tests).
//
// # Layout
//
// Wireshark-like: connections and the message list on top, the field tree
// (package detail) and the bit-level hexdump (package bits) below, or the
// listener-ID tables (package tables, wire.md 4.5) in place of the bits;
// then the filter bar, the status bar and a help line. It works from 80×24
// up.
//
// # Keys
//
// Global keys are matched first (tab, /, :N, ?, t, f, space, esc, e, F,
// i, y, w, v, q, and Enter in the message list: to the message's pair,
// outputs.md "Pairing", and back), then the focused pane's KeyMap. The help (?), expert info
// (e, package expert), a followed connection (F, package follow), the I/O
// graph (i, package iograph) and the full text of the selection (v) open
// in one scrolling overlay (package pager) over the panes; Enter there
// goes to the message or connection a line names. y copies the selected
// field's value or message's hex through OSC 52 (tea.SetClipboard), the
// only escape sequence besides styling the TUI writes; w has the CLI
// (Config.Export) copy the listed messages' packets into a pcapng. The mouse focuses and selects by click and
// scrolls the pane under it by wheel. What every list pane shares (its
// movement keys, title and selection styles, size, focus, cursor and
// scrolling, the title-and-rows rendering) is frame.List, ListKeyMap and
// ListStyles, embedded in each pane's Model, KeyMap and Styles.
//
// # Data flow
//
// IO reaches the UI only as messages: the feeding goroutine sends
// ProgressMsg (throttled) and LiveMsg through Program.Send, and reading a
// message back from the capture file (session.Store) happens only in
// commands: the selected message's detail and tables (detailMsg), the rows
// in view (messages.RowsMsg), the filter's scan (messages.ScannedMsg), the
// overlays' contents (overlayMsg: expert info, follow, I/O graph), the
// connections' missing listeners (missingMsg) and the pcapng export
// (exportedMsg).
// Update and View call only the Source methods that read memory; a source
// without a file behind it (Source.ReadsStore false) has those commands run
// at once, before the frame. Work that grows with the capture (indexing
// messages by connection, testing a filter) is done in bounded steps
// across updates, and only visible rows are read, so the first frame and
// each key press stay fast on a million messages.
//
// # ULinkRPC and other registered protocols
//
// A hosted protocol's message (session.Message.Record(), a decode.Record:
// ULinkRPC's or any registered protocol's) is shown by every pane from its
// record: the row from its Line, the tree from its Tree, the bytes its
// Meta.Data (a ULinkRPC envelope; frame.Bytes), the tables a ULinkRPC
// connection's `rpc` table.
//
// # Terminal safety
//
// Every string from the wire is shown through termsafe.Escape (wire.md 1.3
// strings are arbitrary UTF-8, and captures can be hostile), and text built
// around such strings (summaries, finding texts) through termsafe.Escaped. Colours come
// from lipgloss.LightDark after the terminal's background is queried;
// NO_COLOR is honoured by the renderer, and no meaning rests on colour alone.
package views
