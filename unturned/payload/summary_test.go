package payload

import (
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/schema"
)

func TestSummary(t *testing.T) {
	long := strings.Repeat("é", 50)
	for _, tt := range []struct {
		name   string
		title  string
		fields []netpak.Span
		want   string
	}{
		{"nothing", "", nil, "srv#0"},
		{"title only", "Chat.Say", nil, "Chat.Say · srv#0"},
		{"values", "Chat.Say", []netpak.Span{{Name: "payload.text", Value: "hi\x1b"}, {Name: "payload.n", Value: uint64(7)}, {Name: "payload.ok", Value: true}},
			`Chat.Say "hi\x1b" 7 true · srv#0`},
		{"top level only", "", []netpak.Span{{Name: "payload.message", Value: "Say"}, {Name: "payload.s.x", Value: int64(1)}, {Name: "payload.l[0]", Value: int64(2)}, {Name: "payload.f", Value: 1.5}},
			"1.5 · srv#0"},
		{"at most three", "M", []netpak.Span{{Name: "p.a", Value: int64(-1)}, {Name: "p.b", Value: int64(2)}, {Name: "p.c", Value: int64(3)}, {Name: "p.d", Value: int64(4)}},
			"M -1 2 3 … · srv#0"},
		{"long value cut", "", []netpak.Span{{Name: "p.s", Value: long}},
			`"` + strings.Repeat("é", maxSummaryValue-2) + "… · srv#0"},
	} {
		if got := Summary(tt.title, tt.fields, "srv#0"); got != tt.want {
			t.Errorf("%s: %q; want %q", tt.name, got, tt.want)
		}
	}
}

func TestTitle(t *testing.T) {
	for _, tt := range []struct {
		listener, message, method, want string
	}{
		{"Chat", "Say", "", "Chat.Say"},
		{"Chat", "InvokeMethod", "ReceiveEmote", "Chat.InvokeMethod.ReceiveEmote"},
		{"", "", "ReceiveGesture", "ReceiveGesture"},
		{"", "", "", ""},
	} {
		if got := title(tt.listener, schema.Result{Message: tt.message, Method: tt.method}); got != tt.want {
			t.Errorf("title(%q, %q, %q) = %q; want %q", tt.listener, tt.message, tt.method, got, tt.want)
		}
	}
}
