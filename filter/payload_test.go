package filter

import (
	"testing"

	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

func TestPayloadFields(t *testing.T) {
	say := &session.Message{N: 1, Kind: unturned.KindInvokeMessageListener, PayloadMessage: "Say", Payload: []netpak.Span{
		{Name: "payload.message", Value: uint64(0)},
		{Name: "payload.text", Value: "Hello there"},
	}}
	inv := &session.Message{N: 2, Kind: unturned.KindInvokeMessageListener, PayloadMessage: "Contents", Payload: []netpak.Span{
		{Name: "payload.message", Value: uint64(0)},
		{Name: "payload.items", Value: uint64(2)},
		{Name: "payload.items[0].amount", Value: uint64(2)},
		{Name: "payload.items[1].amount", Value: uint64(7)},
		{Name: "payload.pos", Value: schema.Vec3{X: 1, Y: 2, Z: 3}},
		{Name: "payload.ok", Value: true},
		{Name: "payload.speed", Value: -1.5},
	}}
	rpc := &session.Message{N: 3, Kind: unturned.KindServerInvokeMethod, PayloadMethod: "ReceiveInputs", Payload: []netpak.Span{
		{Name: "payload.method", Value: "ReceiveInputs"},
		{Name: "payload.frame", Value: uint64(1024)},
	}}
	plain := &session.Message{N: 4, Kind: unturned.KindInvokeMessageListener}
	msgs := []*session.Message{say, inv, rpc, plain}
	tests := []struct {
		expr string
		want []int
	}{
		{`payload.text ~ "hello"`, []int{1}},
		{`payload.TEXT == "hello there"`, []int{1}},
		{`payload_message == Say`, []int{1}},
		{`payload_message != Say`, []int{2, 3, 4}},
		{`payload_method == ReceiveInputs`, []int{3}},
		{`payload.method == receiveinputs`, []int{3}},
		{`payload.frame >= 1000`, []int{3}},
		{`payload.frame == 0x400`, []int{3}},
		{`payload.items[1].amount == 7`, []int{2}},
		{`payload.items[].amount > 5`, []int{2}},
		{`payload.items.amount == 2`, []int{2}},
		{`payload.items == 2`, []int{2}},
		{`payload.pos ~ "2, 3"`, []int{2}},
		{`payload.ok == true`, []int{2}},
		{`payload.speed < -1`, []int{2}},
		{`payload.missing == 1`, nil},
		{`payload.message == 0 && msg == InvokeMessageListener`, []int{1, 2}},
	}
	for _, tt := range tests {
		f, err := Parse(tt.expr)
		if err != nil {
			t.Fatalf("Parse(%q) = %v", tt.expr, err)
		}
		if f.HeadOnly() {
			t.Errorf("Parse(%q).HeadOnly() = true; payload fields need the message", tt.expr)
		}
		var got []int
		for _, m := range msgs {
			if f.Match(m) {
				got = append(got, m.N)
			}
		}
		if len(got) != len(tt.want) || (len(got) > 0 && !equal(got, tt.want)) {
			t.Errorf("%q matches %v; want %v", tt.expr, got, tt.want)
		}
	}
	if _, err := Parse(`payload.frame > many`); err == nil {
		t.Errorf(`Parse("payload.frame > many") = nil error; want "not a number"`)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
