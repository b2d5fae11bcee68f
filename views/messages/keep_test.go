package messages

import (
	"runtime"
	"testing"
	"weak"

	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
)

// watched hands out fresh messages and remembers each weakly, so a test
// can see which ones something still holds.
type watched struct {
	src  *fake.Source
	seen []weak.Pointer[session.Message]
}

func (w *watched) Message(n int) *session.Message {
	msg := w.src.Message(n)
	if msg != nil {
		w.seen = append(w.seen, weak.Make(msg))
	}
	return msg
}

func (w *watched) Settled() int { return w.src.Len() }

// The list keeps what its rows draw, not the messages it read: a message
// read whole may hold a mebibyte of inflated payload, and a screenful of
// such rows held whole took the TUI past 160 MB on issue 29's gzip shape.
func TestRowsDoNotHoldMessages(t *testing.T) {
	w := &watched{src: fake.Big(100)}
	m := New(w, All(100))
	m.SetSize(120, 21) // 20 rows
	m.SetLookup(func(field string, msg *session.Message) Value {
		return Value{Text: msg.Name(), OK: true}
	})
	m.SetColumns([]Column{{Field: "msg", Width: 12}})
	before := view(&m)
	if len(w.seen) != 20 {
		t.Fatalf("Load read %d messages; want 20", len(w.seen))
	}
	runtime.GC()
	held := 0
	for _, p := range w.seen {
		if p.Value() != nil {
			held++
		}
	}
	if held != 0 {
		t.Errorf("after a GC the list still holds %d of the %d messages it read; want 0", held, len(w.seen))
	}
	// What the rows draw is kept: the view is the same without reading
	// again, the column's values included.
	n := len(w.seen)
	if after := view(&m); after != before {
		t.Errorf("view changed with nothing read again:\n%s\nwant\n%s", after, before)
	}
	if len(w.seen) != n {
		t.Errorf("a second view read %d messages again; want 0", len(w.seen)-n)
	}
	// A column added later needs its values: the rows are read again.
	m.SetColumns([]Column{{Field: "msg", Width: 12}, {Field: "len", Width: 6}})
	view(&m)
	if got := len(w.seen) - n; got != 20 {
		t.Errorf("after a column was added Load read %d messages; want 20", got)
	}
}
