package unturned

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

// decodeAll decodes data with spans on.
func decodeAll(p *Profile, dir dissect.Dir, st State, data []byte) (*Decoded, []netpak.Span) {
	var d Decoded
	var sp netpak.Spans
	Decode(p, dir, st, data, &sp, &d)
	return &d, sp.List
}

func spanOf(spans []netpak.Span, name string) (netpak.Span, bool) {
	for _, s := range spans {
		if s.Name == name {
			return s, true
		}
	}
	return netpak.Span{}, false
}

func findingsText(fs []dissect.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "[%s %s @%d] %s; ", f.Severity, f.Group, f.Bit, f.Text)
	}
	return b.String()
}

// TestDecodeSpecVectors decodes the computed examples of wire.md 3 and checks
// every field's span and value against the bit layout worked out by hand.
func TestDecodeSpecVectors(t *testing.T) {
	tests := []struct {
		name string
		dir  dissect.Dir
		st   State
		hex  string
		kind Kind
		want []netpak.Span
	}{
		{
			// 5-bit enum 12; String: flag bit 5, len-1=2 in bits 6..16, pad to 24, "bye".
			"Kicked(bye)", dissect.S2C, State{}, "8c 00 00 62 79 65", KindKicked,
			[]netpak.Span{{Name: "enum", Bit: 0, Bits: 5, Value: uint64(12)}, {Name: "reason", Bit: 5, Bits: 43, Value: "bye"}},
		},
		{
			// enum 10; rejection 3 in bits 5..10; explanation from bit 11 to byte 11.
			"Rejected(WRONG_VERSION)", dissect.S2C, State{}, "6a 70 00 33 2e 32 36 2e 33 2e 34", KindRejected,
			[]netpak.Span{{Name: "enum", Bit: 0, Bits: 5, Value: uint64(10)}, {Name: "rejection", Bit: 5, Bits: 6, Value: uint64(3)},
				{Name: "explanation", Bit: 11, Bits: 77, Value: "3.26.3.4"}},
		},
		{
			// enum 9; ip bits 5..36; port bits 37..52; 3 zero pad bits.
			"Accepted", dissect.S2C, State{}, "89 60 40 20 e0 30 0d", KindAccepted,
			[]netpak.Span{{Name: "enum", Bit: 0, Bits: 5, Value: uint64(9)}, {Name: "ip", Bit: 5, Bits: 32, Value: uint64(0x01020304)},
				{Name: "query_port", Bit: 37, Bits: 16, Value: uint64(27015)}, {Name: "padding", Bit: 53, Bits: 3, Value: uint64(0)}},
		},
		{
			// Widened S→C invoke 32 in 6 bits (000001), no definition, a 0-bit
			// Listener_ID (one listener: CountBits(0) = 0, wire.md 4.3), one pad bit of payload.
			"invoke 0-bit id", dissect.S2C, State{Widened: true, IDKnown: true}, "20", KindInvokeMessageListener,
			[]netpak.Span{{Name: "enum", Bit: 0, Bits: 6, Value: uint64(32)}, {Name: "Has_Listener_Definition", Bit: 6, Bits: 1, Value: false},
				{Name: "Listener_ID", Bit: 7, Bits: 0, Value: uint64(0)}, {Name: "payload", Bit: 7, Bits: 1, Value: nil}},
		},
		{
			// C→S TellServerMissingListener: enum 18 in 5 bits (01001), mode 2 (01), Serverside_Listener_ID 5 in 3 bits (101).
			"TellServerMissingListener", dissect.C2S, State{Widened: true, IDBits: 3, IDKnown: true}, "d2 02", KindNegotiateListenerDetails,
			[]netpak.Span{{Name: "enum", Bit: 0, Bits: 5, Value: uint64(18)}, {Name: "mode", Bit: 5, Bits: 2, Value: uint64(2)},
				{Name: "Serverside_Listener_ID", Bit: 7, Bits: 3, Value: uint64(5)}, {Name: "padding", Bit: 10, Bits: 6, Value: uint64(0)}},
		},
	}
	for _, tt := range tests {
		d, spans := decodeAll(Default(), tt.dir, tt.st, unhex(t, tt.hex))
		if d.Kind != tt.kind {
			t.Errorf("%s: Kind = %v; want %v", tt.name, d.Kind, tt.kind)
		}
		if len(d.Findings) != 0 {
			t.Errorf("%s: findings = %s; want none", tt.name, findingsText(d.Findings))
		}
		if !reflect.DeepEqual(spans, tt.want) {
			t.Errorf("%s: spans =\n%+v; want\n%+v", tt.name, spans, tt.want)
		}
	}
}
