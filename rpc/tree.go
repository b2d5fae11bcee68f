package rpc

import (
	"fmt"
	"github.com/usmnscope/usmnscope/decode"
	"strconv"
	"strings"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// The layer tree of a record: ulinkrpc.md's layering, bottom up (transport
// → transform → envelope → payload → the contract), each field with its
// span. The TUI's detail pane and `dump -V` both draw it, so what a field
// is called and where it lies is decided once, here.

// NodeKind says what a Node of the layer tree is: the neutral record's
// (decode.NodeKind).
type NodeKind = decode.NodeKind

const (
	LayerNode   = decode.LayerNode   // a protocol layer; Text describes it
	FieldNode   = decode.FieldNode   // a field with its span
	InfoNode    = decode.InfoNode    // a named line of text (a name, a pair, ticks)
	FindingNode = decode.FindingNode // expert information
)

// Node is one line of a record's layer tree (decode.Node): Field is the
// index in Record.Fields of a FieldNode, whose span is in Record.Envelope;
// -1 for a transform field, whose span is in the transformed frame
// (Record.TransformFields), which no record keeps.
type Node = decode.Node

// Tree returns r's layer tree: transport, transform, envelope (its
// fields), payload (its fields nested by name), the contract's names and
// the pairing, then the findings.
func Tree(r *Record) []Node {
	out := []Node{transportNode(r), transformNode(r)}
	if r.Envelope != nil {
		out = append(out, envelopeNode(r))
	} else if prefix, env, ok := Inflated(r); ok {
		out = append(out, inflatedNode(r, prefix, env))
	}
	if p := r.Payload; p != nil {
		out = append(out, payloadNode(r, p))
	}
	if c := contractNode(r); len(c.Children) > 0 {
		out = append(out, c)
	}
	if len(r.Findings) > 0 {
		f := Node{Kind: LayerNode, Name: "findings", Text: strconv.Itoa(len(r.Findings)), Field: -1}
		for _, fd := range r.Findings {
			f.Children = append(f.Children, Node{Kind: FindingNode, Name: fd.Severity.String(),
				Text: termsafe.Escaped(fd.Text), Finding: fd, Field: -1})
		}
		out = append(out, f)
	}
	return out
}

func transportNode(r *Record) Node {
	where := "stream"
	if r.Transport == KCP {
		where = "conv stream" // ulinkrpc.md 2.3: each conv is its own stream
	}
	return Node{Kind: LayerNode, Name: "transport", Field: -1,
		Text: fmt.Sprintf("%s, frame %d, length prefix %d at %s %s offset %d", r.Transport, r.Frame, r.Len, r.Dir, where, r.Offset)}
}

// transformNode is the transform layer (ulinkrpc.md 3). Its fields' spans
// are in the transformed frame, not in the envelope.
func transformNode(r *Record) Node {
	n := Node{Kind: LayerNode, Name: "transform", Field: -1, Text: "none (the frame is the envelope)"}
	t := r.Transform
	if t == nil {
		return n
	}
	var parts []string
	if t.Flags != nil {
		parts = append(parts, "flags "+strconv.Itoa(*t.Flags))
	}
	for _, p := range []struct {
		on   bool
		what string
	}{{t.Encrypted && t.Decrypted, "decrypted"}, {t.Encrypted && !t.Decrypted, "encrypted, not decrypted"}, {t.Gzip, "gzip"}} {
		if p.on {
			parts = append(parts, p.what)
		}
	}
	n.Text = strings.Join(append(parts, "spans in the transformed frame"), ", ")
	for _, f := range r.TransformFields {
		name := termsafe.Escape(f.Name)
		n.Children = append(n.Children, Node{Kind: FieldNode, Label: name, Path: "transform." + name, Field: -1, Span: f})
	}
	return n
}

// Inflated inflates again, on demand, the start of a frame whose gzip
// body inflated past the display cap (issue 29: the record keeps the
// compressed body, not the inflated envelope): at most the cap's bytes,
// and the envelope's fields read from them. ok is false for any other
// record. Nothing is kept: each call inflates again.
func Inflated(r *Record) (prefix []byte, env ulinkrpc.Envelope, ok bool) {
	if r.capped <= 0 || r.Envelope != nil {
		return nil, env, false
	}
	var body []byte
	for _, f := range r.TransformFields {
		if b, isBytes := f.Value.([]byte); isBytes && (f.Name == "body" || f.Name == "plain.body") {
			body = b
		}
	}
	if body == nil {
		return nil, env, false
	}
	prefix, _ = ulinkrpc.InflatePrefix(body, r.capped)
	env, _ = ulinkrpc.DecodeEnvelope(prefix)
	return prefix, env, true
}

// inflatedNode is the envelope layer of a record inflated on demand: the
// fields its first bytes hold (the payload cut at the cap).
func inflatedNode(r *Record, prefix []byte, env ulinkrpc.Envelope) Node {
	name := "Unknown"
	if env.Type.Known() {
		name = env.Type.String()
	}
	n := Node{Kind: LayerNode, Name: "envelope", Field: -1,
		Text: fmt.Sprintf("%s, the first %s inflated on demand (the frame inflates past the display cap of %s)",
			name, dissect.Count(len(prefix), "byte"), dissect.Count(r.capped, "byte"))}
	for _, f := range env.Fields {
		if strings.HasPrefix(f.Name, "payload.") {
			continue
		}
		name := termsafe.Escape(f.Name)
		n.Children = append(n.Children, Node{Kind: FieldNode, Label: name, Path: name, Field: -1, Span: f})
	}
	return n
}

func envelopeNode(r *Record) Node {
	n := Node{Kind: LayerNode, Name: "envelope", Field: -1,
		Text: termsafe.Escape(r.Msg) + ", " + dissect.Count(len(r.Envelope), "byte")}
	for i, f := range r.Fields {
		if strings.HasPrefix(f.Name, "payload.") {
			continue
		}
		name := termsafe.Escape(f.Name)
		n.Children = append(n.Children, Node{Kind: FieldNode, Label: name, Path: name, Field: i, Span: f, Note: fieldNote(r, f.Name)})
	}
	return n
}

// fieldNote names what an envelope number stands for.
func fieldNote(r *Record, name string) string {
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return termsafe.Escape(*p)
	}
	switch name {
	case "type":
		return termsafe.Escape(r.Msg)
	case "status":
		return s(r.RPC.Status)
	case "service_id":
		return s(r.RPC.Service)
	case "method_id":
		return s(r.RPC.Method)
	}
	return ""
}

// payloadNode is the payload layer (ulinkrpc.md 6) with its fields nested:
// a field is the child of the latest field before it whose name is its
// name's prefix (up to a "." or "[") and whose span holds it.
func payloadNode(r *Record, p *ulinkrpc.Payload) Node {
	n := Node{Kind: LayerNode, Name: "payload", Field: -1, Text: payloadLayer(p)}
	guess := guesses(p.Object)
	stack := []openField{{path: "payload", node: &n}}
	for i, f := range r.Fields {
		if !strings.HasPrefix(f.Name, "payload.") {
			continue
		}
		for len(stack) > 1 && !within(stack[len(stack)-1], f) {
			stack = stack[:len(stack)-1]
		}
		// Appending to parent's children leaves the pointers on the stack
		// valid: every one deeper than parent was popped above.
		parent := stack[len(stack)-1]
		rest := strings.TrimPrefix(f.Name, parent.path)
		rest = strings.TrimPrefix(rest, ".")
		parent.node.Children = append(parent.node.Children, Node{Kind: FieldNode, Label: termsafe.Escape(rest),
			Path: termsafe.Escape(f.Name), Field: i, Span: f, Note: termsafe.Escape(guess[f.Name])})
		child := &parent.node.Children[len(parent.node.Children)-1]
		stack = append(stack, openField{path: f.Name, span: f, node: child})
	}
	return n
}

// openField is a payload field that later fields may nest in.
type openField struct {
	path string
	span dissect.Field
	node *Node
}

// within reports whether f nests in o: named below it and inside its span.
func within(o openField, f dissect.Field) bool {
	rest, ok := strings.CutPrefix(f.Name, o.path)
	if !ok || rest == "" || rest[0] != '.' && rest[0] != '[' {
		return false
	}
	return f.Bit >= o.span.Bit && f.End() <= o.span.End()
}

// payloadLayer describes a payload: its encoding and size, and for
// MemoryPack without a schema the members cut.
func payloadLayer(p *ulinkrpc.Payload) string {
	s := fmt.Sprintf("%s, %s", p.Encoding, dissect.Count(p.Bytes, "byte"))
	if o := p.Object; o != nil {
		if o.Null {
			return s + ", null object"
		}
		return s + ", " + dissect.Count(len(o.Members), "member") + " cut without a schema"
	}
	return s
}

// guesses maps the schemaless MemoryPack fields (payload.<index>, as
// MPObject.Fields names them) to the shapes their bytes fit.
func guesses(o *ulinkrpc.MPObject) map[string]string {
	if o == nil {
		return nil
	}
	out := map[string]string{}
	var walk func(o *ulinkrpc.MPObject, prefix string)
	walk = func(o *ulinkrpc.MPObject, prefix string) {
		for _, m := range o.Members {
			name := prefix + "." + strconv.Itoa(m.Index)
			// A string's guess repeats the value the field shows.
			if m.Guess != "" && !strings.HasPrefix(m.Guess, "string ") {
				out[name] = m.Guess
			}
			if m.Object != nil {
				walk(m.Object, name)
			}
			for i := range m.Items {
				walk(&m.Items[i], name+"["+strconv.Itoa(i)+"]")
			}
		}
	}
	walk(o, "payload")
	return out
}

// contractNode is the contract layer: the service and method names
// (ulinkrpc.md 5 and 6: a Response is named by its Request), the status,
// the error text, the ticks and the pairing.
func contractNode(r *Record) Node {
	n := Node{Kind: LayerNode, Name: "rpc", Field: -1, Text: termsafe.Escape(r.Msg)}
	if r.RPC.ServiceID != nil {
		n.Text = termsafe.Escape(r.methodName())
	}
	add := func(k, v string) { n.Children = append(n.Children, Node{Kind: InfoNode, Name: k, Text: v, Field: -1}) }
	c := &r.RPC
	if c.ServiceID != nil {
		add("service", idName(*c.ServiceID, c.Service))
	}
	if c.MethodID != nil {
		add("method", idName(*c.MethodID, c.Method))
	}
	if c.RequestID != nil {
		add("request id", strconv.FormatUint(uint64(*c.RequestID), 10))
	}
	if c.Status != nil {
		add("status", fmt.Sprintf("%d %s", *c.StatusCode, termsafe.Escape(*c.Status)))
	}
	if c.Error != nil {
		e := `"` + termsafe.Escape(*c.Error) + `"`
		if c.ErrorRaw != nil {
			e += fmt.Sprintf(" (not UTF-8: %x)", c.ErrorRaw)
		}
		add("error", e)
	}
	if c.Ticks != nil {
		add("ticks", ticksText(*c.Ticks, r.Time))
	}
	if r.Pair != 0 {
		add("pair", "#"+strconv.Itoa(r.Pair))
	}
	if r.HasLatency {
		add("latency", dissect.FormatLatency(r.Latency))
	}
	return n
}

func idName(id int32, name *string) string {
	if name == nil {
		return strconv.Itoa(int(id))
	}
	return strconv.Itoa(int(id)) + " " + termsafe.Escape(*name)
}

// .NET ticks (ulinkrpc.md 4): 100 ns since 0001-01-01 UTC; the Unix epoch
// is tick 621355968000000000 and DateTime.MaxValue tick 3155378975999999999.
const (
	unixTicks = 621355968000000000
	maxTicks  = 3155378975999999999
)

// ticksText shows a KeepAlive's ticks as the sender's clock read them and
// the offset between that clock and the capture's (ulinkrpc.md 5: the
// ticks are the sender's clock; RTT is measured on capture time).
func ticksText(ticks int64, at time.Time) string {
	s := strconv.FormatInt(ticks, 10)
	if ticks < 0 || ticks > maxTicks {
		return s + " (not a .NET time)"
	}
	d := ticks - unixTicks
	t := time.Unix(d/1e7, d%1e7*100).UTC()
	s += " = " + t.Format("2006-01-02T15:04:05.0000000Z") + " by the sender's clock"
	if off := at.Sub(t); !at.IsZero() && off > -24*time.Hour && off < 24*time.Hour {
		s += ", capture time − that = " + dissect.FormatLatency(off)
	}
	return s
}

// TreeText is `dump -V`'s text of r after its line: the layer tree, one
// layer a line, the envelope's bytes as one hex string (what `usmnscope
// bits` and dump --json's "hex" spell), each field as Unturned's tree has
// it (bit offset and length, the bytes in hex where they fit, name and
// value), then the findings.
func TreeText(r *Record) string {
	var b strings.Builder
	for _, n := range Tree(r) {
		switch n.Name {
		case "findings":
			for _, f := range n.Children {
				fmt.Fprintf(&b, "    %s %s: %s", f.Finding.Severity, f.Finding.Group, f.Text)
				if f.Finding.Bit >= 0 {
					fmt.Fprintf(&b, " (bit %d)", f.Finding.Bit)
				}
				b.WriteByte('\n')
			}
			continue
		case "rpc":
			parts := make([]string, len(n.Children))
			for i, c := range n.Children {
				parts[i] = c.Name + " " + c.Text
			}
			fmt.Fprintf(&b, "    rpc: %s\n", strings.Join(parts, ", "))
			continue
		}
		fmt.Fprintf(&b, "    %s: %s\n", n.Name, n.Text)
		var data []byte
		if n.Name != "transform" {
			data = r.Envelope
		}
		switch {
		case n.Name == "envelope" && r.Envelope != nil:
			fmt.Fprintf(&b, "    hex: %x\n", r.Envelope)
		case n.Name == "envelope":
			data, _, _ = Inflated(r)
		}
		writeFieldLines(&b, data, n.Children)
	}
	return b.String()
}

// FieldValue is a field's value as dissect.FormatValue writes it in
// format, or "(empty)" for an empty one (a void payload, ulinkrpc.md 5).
func FieldValue(f dissect.Field, format dissect.ValueFormat) string {
	if v := dissect.FormatValue(f.Value, format); v != "" {
		return v
	}
	return "(empty)"
}

// hexColumn is the width of the bytes column: Unturned's bit-string
// column (cmd/usmnscope format.go), so both trees line up.
const hexColumn = 49

// writeFieldLines writes field nodes and their children, depth first.
// data holds the fields' bytes (nil: not kept, as for transform fields).
func writeFieldLines(b *strings.Builder, data []byte, ns []Node) {
	for _, n := range ns {
		if n.Kind != FieldNode {
			continue
		}
		f := n.Span
		v := FieldValue(f, dissect.TextValues)
		if n.Note != "" {
			v += " (" + n.Note + ")"
		}
		fmt.Fprintf(b, "    %5d+%-4d %-*s = %s: %s\n", f.Bit, f.Bits, hexColumn, fieldHex(data, f), n.Path, v)
		writeFieldLines(b, data, n.Children)
	}
}

// fieldHex is a field's bytes in hex when they are at most 16 and in data.
func fieldHex(data []byte, f dissect.Field) string {
	lo, hi := f.Bit/8, (f.End()+7)/8
	if f.Bits <= 0 || f.Bit < 0 || hi > len(data) || hi-lo > 16 {
		return ""
	}
	var b strings.Builder
	for i := lo; i < hi; i++ {
		if i > lo {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%02x", data[i])
	}
	return b.String()
}
