package unturned

import (
	"reflect"
	"testing"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
)

// TestExportRules: the USMN handshake messages mark a connection (both
// marks: decoded without inference), and the messages written for the
// decoding of those after them are the handshake's, every
// NegotiateListenerDetails and an InvokeMessageListener with a listener
// definition.
func TestExportRules(t *testing.T) {
	def := func(v any) func() []dissect.Field {
		return func() []dissect.Field { return []dissect.Field{{Name: "Has_Listener_Definition", Value: v}} }
	}
	for _, tt := range []struct {
		kind    Kind
		fields  func() []dissect.Field
		mark    int
		context bool
	}{
		{KindGetWorkshopFiles, nil, 1, true},
		{KindDownloadWorkshopFiles, nil, 2, true},
		{KindNegotiateListenerDetails, nil, 0, true},
		{KindInvokeMessageListener, def(true), 0, true},
		{KindInvokeMessageListener, def(false), 0, false},
		{KindInvokeMessageListener, def("yes"), 0, false},
		{KindInvokeMessageListener, func() []dissect.Field { return nil }, 0, false},
		{KindServerPingRequest, nil, 0, false},
		{KindAccepted, nil, 0, false},
	} {
		name := tt.kind.String()
		if got := Export.Mark(name); got != tt.mark {
			t.Errorf("Mark(%s) = %d; want %d", name, got, tt.mark)
		}
		if got := Export.Context(name, tt.fields); got != tt.context {
			t.Errorf("Context(%s) = %v; want %v", name, got, tt.context)
		}
	}
	if Export.Marks != 3 {
		t.Errorf("Marks = %d; want 3 (both handshake messages)", Export.Marks)
	}
}

// TestExportPlace: SystemSockets framing places each message (its 2-byte
// length and bytes) at the cursor or the next place it is whole in the
// capture, and keeps the kept ones; a kept message not found is an error.
func TestExportPlace(t *testing.T) {
	s := []byte{0, 2, 'a', 'b', 0, 1, 'c', 0, 2, 'a', 'b'}
	ms := []decode.Placed{{N: 1, Data: []byte("ab")}, {N: 2, Data: []byte("c")}, {N: 3, Data: []byte("ab")}}
	all := func(from, to int64) bool { return true }
	rg := func(from, to int64) decode.Range { return decode.Range{From: from, To: to} }
	for _, tt := range []struct {
		name     string
		captured func(from, to int64) bool
		ms       []decode.Placed
		kept     map[int]bool
		want     []decode.Range
		at       map[int]decode.Range
		err      bool
	}{
		{"all kept", all, ms, map[int]bool{1: true, 2: true, 3: true},
			[]decode.Range{rg(0, 4), rg(4, 7), rg(7, 11)}, map[int]decode.Range{1: rg(0, 4), 2: rg(4, 7), 3: rg(7, 11)}, false},
		{"one kept", nil, ms, map[int]bool{3: true},
			[]decode.Range{rg(7, 11)}, map[int]decode.Range{1: rg(0, 4), 2: rg(4, 7), 3: rg(7, 11)}, false},
		{"a lost byte passed over", func(from, to int64) bool { return from > 0 }, ms[:1], map[int]bool{1: true},
			[]decode.Range{rg(7, 11)}, map[int]decode.Range{1: rg(7, 11)}, false},
		{"not found", all, []decode.Placed{{N: 4, Data: []byte("zz")}}, map[int]bool{4: true}, nil, map[int]decode.Range{}, true},
		{"not found, not kept", all, []decode.Placed{{N: 4, Data: []byte("zz")}}, nil, nil, map[int]decode.Range{}, false},
	} {
		at := map[int]decode.Range{}
		rs, err := Export.Framing(nil).Place(s, tt.captured, tt.ms, tt.kept, at)
		if (err != nil) != tt.err || !reflect.DeepEqual(rs, tt.want) || !reflect.DeepEqual(at, tt.at) {
			t.Errorf("%s: Place = %v, %v, placed %v; want %v, error %v, placed %v", tt.name, rs, err, at, tt.want, tt.err, tt.at)
		}
	}
}
