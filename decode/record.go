package decode

import (
	"strings"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
)

// Meta are the neutral values of a record: what the host numbers, stores,
// streams, cuts and pairs by.
type Meta struct {
	N     int
	Frame int
	Time  time.Time
	Conn  dissect.Conn
	Dir   dissect.Dir
	Proto string // the protocol's name (Protocol.Name)
	Name  string // the typed name: outputs.md "msg"
	// Len is the record's length as the filter's `len` reads it; Wire the
	// bytes it took on the wire (the connection's byte counts); Size the
	// bytes the host counts while the record waits to be numbered.
	Len, Wire, Size int
	Data            []byte          // the bytes `-x` shows and the fields' spans lie in
	Fields          []dissect.Field // the fields whose spans lie in Data
	Findings        []dissect.Finding
	Pair            int // n of the partner, 0 for none
	Latency         time.Duration
	HasLatency      bool
}

// Record is one decoded record of a protocol the host hosts.
type Record interface {
	Meta() Meta
	// Line is the dump line after number, time, connection and direction.
	Line() string
	// Tree is the layer tree `dump -V` and the TUI's detail pane draw;
	// TreeText its `-V` text.
	Tree() []Node
	TreeText() string
	// AppendJSON appends the record's `dump --json` object; origin, when
	// not nil, is the capture key's JSON (several captures).
	AppendJSON(dst, origin []byte) []byte
	// Values are the values of a filter field name ("payload.x", a
	// protocol key); ok false when the protocol has no such field.
	Values(name string) (vs []any, ok bool)
	// Clone is a copy the host hands to readers: the feeder may still
	// pair the original.
	Clone() Record
}

// Briefer is a Record whose Meta may decode what it left for later (a
// record of a Config.Lazy connection builds its payload's fields when they
// are read): Brief is Meta without Data's fields, all a host reads while it
// numbers, pairs, counts and hands the record out.
type Briefer interface {
	Brief() Meta
}

// BriefOf is r's Brief when it has one, else its Meta: a host's reading of
// a record that needs no fields.
func BriefOf(r Record) Meta {
	if b, ok := r.(Briefer); ok {
		return b.Brief()
	}
	return r.Meta()
}

// Glance is what a host reads of a record as it numbers, keeps and hands
// it out: Meta's fields of those names, without the connection, the names
// or the fields.
type Glance struct {
	N, Frame        int
	Time            time.Time
	Dir             dissect.Dir
	Len, Wire, Size int
	Data            []byte
	Findings        []dissect.Finding
	Pair            int
	Latency         time.Duration
	HasLatency      bool
}

// Glancer is a Record that gives its Glance without making its Meta
// (issue 28: making a ULinkRPC record's Meta twice was a tenth of the
// decoding goroutine of `dump --json`).
type Glancer interface {
	Glance() Glance
}

// GlanceOf is r's Glance: its own when it has one, else read from its
// Brief (BriefOf).
func GlanceOf(r Record) Glance {
	if g, ok := r.(Glancer); ok {
		return g.Glance()
	}
	m := BriefOf(r)
	return Glance{N: m.N, Frame: m.Frame, Time: m.Time, Dir: m.Dir, Len: m.Len, Wire: m.Wire, Size: m.Size,
		Data: m.Data, Findings: m.Findings, Pair: m.Pair, Latency: m.Latency, HasLatency: m.HasLatency}
}

// Releaser is a Record its protocol may reuse once its host has written
// it and holds it no more (a stream's batch, once encoded): Release hands
// it back. A host calls it at most once, and never reads the record after.
type Releaser interface {
	Release()
}

// NodeKind says what a Node of the layer tree is.
type NodeKind uint8

const (
	LayerNode   NodeKind = iota // a protocol layer; Text describes it
	FieldNode                   // a field with its span
	InfoNode                    // a named line of text (a name, a pair, ticks)
	FindingNode                 // expert information
)

// Node is one line of a record's layer tree. Text, Label and Note are
// escaped (termsafe) and may be shown as they are; Span keeps the field
// exactly, its value for dissect.FormatValue.
type Node struct {
	Kind  NodeKind
	Name  string // layer or info key: "transport", "envelope", "service"…
	Text  string // LayerNode, InfoNode: what it says; FindingNode: the finding's text
	Label string // FieldNode: the name below its parent ("Account", "[0]")
	Path  string // FieldNode: the full field name ("payload.Items[0].Name")
	// Field is the index of a FieldNode's field among the record's fields,
	// whose span is in Meta.Data; -1 for a field whose span lies in bytes
	// no record keeps.
	Field    int
	Span     dissect.Field
	Note     string // FieldNode: what a number means ("Request", a service name)
	Finding  dissect.Finding
	Children []Node
}

// NameMatch compares a field name with a filter's name, case
// insensitively, where the filter may leave a list index out: "[]" or
// nothing matches any "[i]" ("payload.items[].amount" and
// "payload.items.amount" match "payload.items[2].amount").
func NameMatch(field, want string) bool {
	if strings.EqualFold(field, want) {
		return true
	}
	if !strings.Contains(field, "[") {
		return false
	}
	var b strings.Builder
	for i := 0; i < len(field); i++ {
		if field[i] == '[' {
			j := strings.IndexByte(field[i:], ']')
			if j < 0 {
				break
			}
			i += j
			continue
		}
		b.WriteByte(field[i])
	}
	bare := b.String()
	return strings.EqualFold(bare, want) || strings.EqualFold(bare, strings.ReplaceAll(want, "[]", ""))
}
