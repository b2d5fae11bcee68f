package rpc

import (
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// flat lists a tree depth first as "depth kind name|label|path".
func flat(ns []Node, depth int, out []Node) []Node {
	for _, n := range ns {
		n.Kind += NodeKind(depth) << 4 // depth rides along in the high bits
		out = append(out, n)
		out = flat(n.Children, depth+1, out)
	}
	return out
}

func sameSpan(a, b dissect.Field) bool { return a.Name == b.Name && a.Bit == b.Bit && a.Bits == b.Bits }

func TestTreeLayersAndNesting(t *testing.T) {
	s := New(testConn, Config{Contracts: contracts(t)})
	play(s, []step{
		{dissect.C2S, 0, ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{"Account":"ann","Items":[{"Name":"a"},{"Name":"b"}],"Inner":{"X":1}}`))},
		{dissect.S2C, 210, ulinkrpc.EncodeResponse(1, ulinkrpc.StatusProtocolError, nil, "\x1b]0;owned\x07")},
		{dissect.C2S, 400, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 639131472000000000)},
	}, 0)
	rs := s.Records()
	req, resp, ping := rs[0], rs[1], rs[2]

	var layers []string
	for _, n := range Tree(req) {
		if n.Kind != LayerNode {
			t.Errorf("Tree(request) top node %q kind %d; want a layer", n.Name, n.Kind)
		}
		layers = append(layers, n.Name)
	}
	if got, want := strings.Join(layers, " "), "transport transform envelope payload rpc"; got != want {
		t.Errorf("Tree(request) layers = %s; want %s", got, want)
	}
	// A record with findings ends with them (the classification note is a
	// connection finding since it is said once per connection).
	noted := *req
	noted.Findings = []dissect.Finding{{Severity: dissect.Note, Group: dissect.Protocol, Text: "a note", Bit: -1}}
	if top := Tree(&noted); len(top) == 0 || top[len(top)-1].Name != "findings" {
		t.Errorf("Tree(request with a finding): the last layer is not findings")
	}

	// Every field node points at the record's field of its span, and the
	// payload members nest by name and span.
	depth := map[string]int{}
	for _, n := range flat(Tree(req), 0, nil) {
		if n.Kind&0xf != FieldNode {
			continue
		}
		if n.Field < 0 || !sameSpan(req.Fields[n.Field], n.Span) || n.Path != n.Span.Name {
			t.Errorf("field node %q: Field %d does not index its span in Record.Fields", n.Path, n.Field)
		}
		depth[n.Path] = int(n.Kind >> 4)
	}
	for path, want := range map[string]int{
		"type": 1, "payload": 1, "payload.Account": 1, "payload.Items": 1,
		"payload.Items[0]": 2, "payload.Items[0].Name": 3, "payload.Inner.X": 2,
	} {
		if got, ok := depth[path]; !ok || got != want {
			t.Errorf("depth of %s = %d (present %v); want %d", path, got, ok, want)
		}
	}

	var notes, infos []string
	for _, n := range flat(Tree(resp), 0, nil) {
		switch n.Kind & 0xf {
		case FieldNode:
			if n.Note != "" {
				notes = append(notes, n.Path+"="+n.Note)
			}
		case InfoNode:
			infos = append(infos, n.Name+": "+n.Text)
		}
	}
	if got, want := strings.Join(notes, " "), "type=Response status=ProtocolError"; got != want {
		t.Errorf("Tree(response) notes = %s; want %s", got, want)
	}
	got := strings.Join(infos, "\n")
	for _, want := range []string{"service: 1 IPlayerService", "method: 1 LoginAsync", "status: 5 ProtocolError",
		`error: "\x1b]0;owned\x07"`, "pair: #1", "latency: 0.21 ms"} {
		if !strings.Contains(got, want) {
			t.Errorf("Tree(response) infos lack %q:\n%s", want, got)
		}
	}
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("Tree(response) holds a raw control character:\n%q", got)
	}
	text := TreeText(ping)
	if want := "ticks 639131472000000000 = 2026-04-30T12:00:00.0000000Z by the sender's clock, capture time − that = 0.40 ms"; !strings.Contains(text, want) {
		t.Errorf("TreeText(ping) lacks %q:\n%s", want, text)
	}
}

// TestTreeTransform: a decrypted frame's transform fields have spans in
// the transformed frame, so they index no envelope field.
func TestTreeTransform(t *testing.T) {
	keys := ulinkrpc.DeriveKeys([]byte("k"), ulinkrpc.HKDF)
	s := New(testConn, Config{Transform: ulinkrpc.TransformConfig{Keys: &keys}})
	env := ulinkrpc.ApplyTransform(ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{}`)), ulinkrpc.TransformOptions{Keys: &keys})
	play(s, []step{{dissect.C2S, 0, env}}, 0)
	tr := Tree(s.Records()[0])[1]
	if tr.Name != "transform" || !strings.Contains(tr.Text, "decrypted") || len(tr.Children) == 0 {
		t.Fatalf("transform layer = %q %q with %d children; want decrypted with fields", tr.Name, tr.Text, len(tr.Children))
	}
	for _, c := range tr.Children {
		if c.Field != -1 || !strings.HasPrefix(c.Path, "transform.") {
			t.Errorf("transform field %q: Field %d; want -1 under transform.", c.Path, c.Field)
		}
	}
}

func TestTicksText(t *testing.T) {
	for _, tc := range []struct {
		ticks int64
		want  string
	}{
		{-1, "-1 (not a .NET time)"},
		{maxTicks + 1, "3155378976000000000 (not a .NET time)"},
		{unixTicks, "621355968000000000 = 1970-01-01T00:00:00.0000000Z by the sender's clock"},
		{7, "7 = 0001-01-01T00:00:00.0000007Z by the sender's clock"},
	} {
		if got := ticksText(tc.ticks, t0); got != tc.want {
			t.Errorf("ticksText(%d) = %s; want %s", tc.ticks, got, tc.want)
		}
	}
}

// BenchmarkTree builds the layer tree of a Request with a nested JSON
// payload, as the detail pane does on each selection.
func BenchmarkTree(b *testing.B) {
	s := New(testConn, Config{Contracts: contracts(b)})
	play(s, []step{{dissect.C2S, 0, ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{"Account":"ann","Items":[{"Name":"a"},{"Name":"b"}],"Inner":{"X":1}}`))}}, 0)
	r := s.Records()[0]
	b.ReportAllocs()
	for b.Loop() {
		Tree(r)
	}
}

// BenchmarkTreeText is dump -V's text of the same record.
func BenchmarkTreeText(b *testing.B) {
	s := New(testConn, Config{Contracts: contracts(b)})
	play(s, []step{{dissect.C2S, 0, ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{"Account":"ann","Items":[{"Name":"a"},{"Name":"b"}],"Inner":{"X":1}}`))}}, 0)
	r := s.Records()[0]
	b.ReportAllocs()
	for b.Loop() {
		TreeText(r)
	}
}

func TestMethodText(t *testing.T) {
	s, m, bad := "IPlayerService", "LoginAsync", "Evil\x1b[2J"
	for _, tc := range []struct {
		svc, method *string
		want        string
	}{
		{&s, &m, "IPlayerService.LoginAsync"},
		{&s, nil, "IPlayerService.?"},
		{nil, nil, "?.?"},
		{&bad, &m, `Evil\x1b[2J.LoginAsync`},
	} {
		if got := MethodText(tc.svc, tc.method); got != tc.want {
			t.Errorf("MethodText(%v, %v) = %q; want %q", tc.svc, tc.method, got, tc.want)
		}
	}
}
