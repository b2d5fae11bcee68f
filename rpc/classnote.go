package rpc

import (
	"fmt"

	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// classTally turns the per-frame classification notes into connection
// findings (ulinkrpc.md 3: "never guess silently: the finding says which
// classification was made"). With the settings unknown every frame is
// classified; a note on each record of a long plain connection says the
// same thing a thousand times. So each classification a connection's
// frames get is said once, as a connection finding that names the first
// record so classified and counts them; the connection's classification is
// its first frame's, and a record classified otherwise keeps its own note
// as well, so that the odd frame out is seen where it is.
type classTally struct {
	set   bool
	conn  ulinkrpc.Class
	order []ulinkrpc.Class                         // classes in the order first seen
	count [ulinkrpc.ClassEncrypted + 1]int         // frames per class
	first [ulinkrpc.ClassEncrypted + 1]ConnFinding // the first record's note, as a connection finding
}

// classified is the hook of numbering: a numbered record r. Its
// classification note, when the transform settings were unknown, counts in
// the connection finding of its class (said once, by sayClasses, when the
// session finishes: a host copies each connection finding once, so its
// count must be final), and leaves the record unless the class differs
// from the connection's.
func (s *Session) classified(r *Record) {
	if !r.classNoted {
		return
	}
	if s.countClass(r.class, r) {
		// Sliced, not moved down: the list may be Untransform's shared
		// one (ulinkrpc.ClassNote).
		r.Findings = r.Findings[1:]
		if len(r.Findings) == 0 {
			r.Findings = nil
		}
	}
}

// countClass counts numbered record r, classified c, in the connection
// finding of its class, and reports whether c is the connection's. A
// light record has no note of its own: its class's is written as
// Untransform writes it.
func (s *Session) countClass(c ulinkrpc.Class, r *Record) bool {
	t := &s.classes
	if !t.set {
		t.set, t.conn = true, c
	}
	if t.count[c] == 0 {
		t.order = append(t.order, c)
		f := ulinkrpc.ClassNote(c)
		if !r.light {
			f = r.Findings[0]
		}
		t.first[c] = ConnFinding{Finding: f, N: r.N, Dir: r.Dir, Frame: r.Frame, Time: r.Time}
		t.first[c].Bit = -1
	}
	t.count[c]++
	return c == t.conn
}

// sayClasses adds the connection finding of each class, once every record
// is numbered (Finish).
func (s *Session) sayClasses() {
	t := &s.classes
	for _, c := range t.order {
		f := t.first[c]
		f.Text = classText(c, t.count[c], f.N, c == t.conn)
		f.Info = c == ulinkrpc.ClassPlain && c == t.conn
		s.findings = append(s.findings, f)
	}
	t.order = nil
}

// classText is the connection finding of a class: how many frames, from
// which record.
func classText(c ulinkrpc.Class, n, first int, conn bool) string {
	frames := "frames"
	if n == 1 {
		frames = "frame"
	}
	text := fmt.Sprintf("transform: settings unknown, %d %s classified as %s, the first #%d", n, frames, c, first)
	if !conn {
		text += " (unlike the connection's first frame: each such record says so too)"
	}
	return text
}
