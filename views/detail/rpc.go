package detail

import (
	"fmt"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/frame"
)

// buildRPC turns a ULinkRPC message into the tree: its head line, then
// rpc.Tree's layers (transport, transform, envelope, payload, the
// contract's names and the pairing), the tree `dump -V` prints too. Field
// lines carry their index in Record.Fields, which the bits pane shows over
// the envelope; transform fields (spans in the transformed frame, which
// is not kept) select nothing there.
func buildRPC(msg *session.Message) []*node {
	r := msg.Record()
	m := r.Meta()
	out := []*node{{path: "msg", field: -1,
		text: fmt.Sprintf("#%d frame %d %s %s %s %s", msg.N, msg.Frame, msg.Dir, msg.Conn, m.Proto, dissect.Count(m.Len, "byte"))}}
	for _, l := range r.Tree() {
		if l.Name == "findings" {
			continue // below, with those the index added
		}
		g := &node{path: "rpc/" + l.Name, field: -1, text: l.Name + ": " + l.Text, group: len(l.Children) > 0}
		for _, c := range l.Children {
			g.children = append(g.children, rpcNode(c, 1))
		}
		out = append(out, g)
	}
	if fs := frame.Findings(msg); len(fs) > 0 {
		g := &node{path: "findings", field: -1, group: true, text: fmt.Sprintf("Findings (%d)", len(fs))}
		for i, f := range fs {
			g.children = append(g.children, findingNode(i, f))
		}
		out = append(out, g)
	}
	return out
}

// rpcNode is one field or info line of the layer tree, its children below.
func rpcNode(n decode.Node, depth int) *node {
	if n.Kind != decode.FieldNode {
		return &node{path: "rpc/info/" + n.Name, field: -1, depth: depth, text: n.Name + ": " + n.Text}
	}
	text := n.Label + " = " + fieldValue(n.Span, dissect.TreeValues)
	if n.Note != "" {
		// The name in place of the hex: "type = 1 (Request)".
		text = n.Label + " = " + fieldValue(n.Span, dissect.TextValues) + " (" + n.Note + ")"
	}
	out := &node{path: "rpc/field/" + n.Path, field: n.Field, depth: depth, text: text,
		off: fmt.Sprintf("@%d+%d", n.Span.Bit, n.Span.Bits), group: len(n.Children) > 0, own: true}
	for _, c := range n.Children {
		out.children = append(out.children, rpcNode(c, depth+1))
	}
	return out
}

// fieldValue is a field's value as the layer tree shows it, "(empty)" for
// none.
func fieldValue(f dissect.Field, format dissect.ValueFormat) string {
	if v := dissect.FormatValue(f.Value, format); v != "" {
		return v
	}
	return "(empty)"
}
