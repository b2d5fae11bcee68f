package frame

import "github.com/usmnscope/usmnscope/dissect"

// Row is one line of text a pane builds for the pager overlay (package
// pager): the help, expert info, a followed connection, the I/O graph.
// Text is shown as it is: the builders escape what came from the wire
// (termsafe). A row may name a message or a connection to go to.
type Row struct {
	Text  string
	Style RowStyle
	Msg   int           // message Enter goes to, 0 for none
	Conn  *dissect.Conn // connection Enter selects, when Msg is 0
	// Colour, when not 0, draws the row in the Colour-th series colour
	// (SeriesStyles): the I/O graph's series and their legend lines.
	Colour uint8
}

// RowStyle says how a row is drawn; meaning never rests on colour alone (a
// severity row starts with its letter or word).
type RowStyle uint8

const (
	Plain RowStyle = iota
	Heading
	NoteRow
	WarnRow
	ErrorRow
)

// Wrap cuts text into lines of at most w runes, at spaces where it can,
// so that a long field or finding can be read whole.
func Wrap(text string, w int) []string {
	w = max(w, 8)
	var out []string
	for _, para := range splitLines(text) {
		r := []rune(para)
		for len(r) > w {
			cut := w
			for i := w; i > w/2; i-- {
				if r[i] == ' ' {
					cut = i
					break
				}
			}
			out = append(out, string(r[:cut]))
			r = r[cut:]
			if len(r) > 0 && r[0] == ' ' {
				r = r[1:]
			}
		}
		out = append(out, string(r))
	}
	return out
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
