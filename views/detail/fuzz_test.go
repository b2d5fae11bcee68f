package detail

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned"
)

// FuzzView puts arbitrary wire strings in every place the tree shows one
// (name, field names and values, listener type, findings): the view must
// never carry a raw control character.
func FuzzView(f *testing.F) {
	f.Add("Sample.ChatListener, Sample", "marker.magic")
	f.Add("\x1b[2J\x1b]0;pwned\x07\u202e\x9b", "a.\x1b.b")
	f.Add("\xff\xfe", "")
	f.Fuzz(func(t *testing.T, s, name string) {
		m := New()
		m.SetSize(60, 30)
		m.SetMessage(&session.Message{
			N: 1, Kind: unturned.KindNegotiateListenerDetails, Data: []byte(s), Mode: unturned.NegotiateMode(len(s)), Summary: s,
			Fields:   []netpak.Span{{Name: name, Bit: 0, Bits: 8, Value: s}, {Name: name + ".x", Bit: 8, Bits: 1, Value: []byte(s)}},
			Listener: &unturned.Listener{Type: &s},
			Findings: []dissect.Finding{{Text: s, Bit: -1}},
		})
		for _, l := range m.Lines() {
			if strings.ContainsAny(l, "\x1b\x07\r\n\u202e\u009b") {
				t.Fatalf("raw control character in %q", l)
			}
		}
		if v := ansi.Strip(m.View()); strings.ContainsAny(v, "\x1b\x07\r\u202e\u009b") {
			t.Fatalf("raw control character in view %q", v)
		}
	})
}

// FuzzViewRPC does the same for a ULinkRPC record: its field names and
// values, names from the contracts, status, error text and findings.
func FuzzViewRPC(f *testing.F) {
	f.Add("IPlayerService", "payload.Account")
	f.Add("\x1b[2J\x1b]0;pwned\x07\u202e\x9b", "payload.\x1b.b[0]")
	f.Add("\xff\xfe", "payload")
	f.Fuzz(func(t *testing.T, s, name string) {
		sid, mid := int32(1), int32(2)
		code := 5
		r := &rpc.Record{N: 1, Msg: s, Envelope: []byte(s), Transform: &rpc.Transform{},
			TransformFields: []dissect.Field{{Name: name, Bit: 0, Bits: 8, Value: s}},
			Fields: []dissect.Field{{Name: "type", Bit: 0, Bits: 8, Value: uint64(1)}, {Name: name, Bit: 0, Bits: 8, Value: s},
				{Name: name + ".x", Bit: 0, Bits: 1, Value: []byte(s)}, {Name: "payload." + name, Bit: 8, Bits: 8, Value: s}},
			RPC:     rpc.RPC{ServiceID: &sid, MethodID: &mid, Service: &s, Method: &s, StatusCode: &code, Status: &s, Error: &s},
			Payload: &ulinkrpc.Payload{Bytes: len(s)}, Findings: []dissect.Finding{{Text: s, Bit: -1}}}
		m := New()
		m.SetSize(60, 30)
		m.SetMessage(&session.Message{N: 1, Rec: r})
		for _, l := range m.Lines() {
			if strings.ContainsAny(l, "\x1b\x07\r\n\u202e\u009b") {
				t.Fatalf("raw control character in %q", l)
			}
		}
		if v := ansi.Strip(m.View()); strings.ContainsAny(v, "\x1b\x07\r\u202e\u009b") {
			t.Fatalf("raw control character in view %q", v)
		}
	})
}
