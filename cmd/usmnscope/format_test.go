package main

import (
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// The bit strings are computed by hand from wire.md 1.1 (stream bit k is
// bit k mod 8 of byte k/8) and the drawing rule of bitString (stream bit
// 8·i+k at column 7−k of byte i's group).
func TestBitString(t *testing.T) {
	// C→S invoke, widened enum 17 = 0b10001 in bits 0..4 and Has_Client_ID = 1
	// at stream bit 5: byte 0 = bits 0, 4, 5 set = 0x31.
	invoke := []byte{0x31}
	// Kicked("bye") from wire.md 3: enum 12 in 5 bits, isEmpty 0 at bit 5,
	// byteCount−1 = 2 in 11 bits at bit 6 (bits 6..16), aligned "bye".
	kicked := []byte{0x8c, 0x00, 0x00, 0x62, 0x79, 0x65}
	// C→S invoke with a client ID: enum 17, Has_Client_ID 1, Has_Listener_Definition
	// 0, then Clientside_Listener_ID 4001 = 0xfa1 in 32 bits from bit 7:
	// byte 0 = 0x31 | (4001&1)<<7 = 0xb1, then 4001>>1 = 0x7d0 in the next bytes.
	clientID := []byte{0xb1, 0xd0, 0x07, 0x00, 0x00}
	tests := []struct {
		name      string
		data      []byte
		bit, bits int
		want      string
	}{
		{"enum", invoke, 0, 5, "...1 0001"},
		{"Has_Client_ID", invoke, 5, 1, "..1. ...."},
		{"Kicked enum", kicked, 0, 5, "...0 1100"},
		{"isEmpty", kicked, 5, 1, "..0. ...."},
		{"length across three bytes", kicked, 6, 11, "10.. .... 0000 0000 .... ...0"},
		{"aligned byte", kicked, 24, 8, "0110 0010"},
		{"Has_Listener_Definition", clientID, 6, 1, ".0.. ...."},
		{"Clientside_Listener_ID over five bytes", clientID, 7, 32, "1... .... 1101 0000 0000 0111 0000 0000 .000 0000"},
		{"crossing one boundary", []byte{0x00, 0xff}, 6, 4, "00.. .... .... ..11"},
		{"zero width", kicked, 5, 0, ""},
		{"past the end", kicked, 40, 9, ""},
		{"wider than five bytes", kicked, 0, 48, ""},
		{"negative offset", kicked, -1, 2, ""},
	}
	for _, tt := range tests {
		if got := bitString(tt.data, tt.bit, tt.bits); got != tt.want {
			t.Errorf("%s: bitString(% x, %d, %d) = %q; want %q", tt.name, tt.data, tt.bit, tt.bits, got, tt.want)
		}
	}
}

func TestValueBits(t *testing.T) {
	kicked := []byte{0x8c, 0x00, 0x00, 0x62, 0x79, 0x65}
	tests := []struct {
		bit, bits int
		want      string
	}{
		{0, 5, "01100"},        // Kicked = 12
		{6, 11, "00000000010"}, // byteCount−1 = 2
		{24, 8, "01100010"},    // 'b'
		{0, 0, ""},
		{0, 65, ""},
		{44, 8, ""},
	}
	for _, tt := range tests {
		if got := valueBits(kicked, tt.bit, tt.bits); got != tt.want {
			t.Errorf("valueBits(kicked, %d, %d) = %q; want %q", tt.bit, tt.bits, got, tt.want)
		}
	}
}

func TestFormatValueEscapes(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"Sample.Chat\x1b]0;pwned\x07", `"Sample.Chat\x1b]0;pwned\x07"`},
		{"a\u009bb", `"a\u009bb"`},
		{true, "true"},
		{uint64(4001), "4001"},
		{int64(-3), "-3"},
		{nil, "(none)"},
		{[]byte{0xde, 0xad}, "dead"},
	}
	for _, tt := range tests {
		if got := formatValue(tt.in); got != tt.want {
			t.Errorf("formatValue(%#v) = %s; want %s", tt.in, got, tt.want)
		}
	}
}

func TestLineEscapesWireStrings(t *testing.T) {
	typ := "Evil\x1b[2J\u009b31m"
	m := &session.Message{N: 1, Kind: unturned.KindInvokeMessageListener, Enum: unturned.Enum{Widened: true},
		Listener: &unturned.Listener{Type: &typ, Resolved: true},
		Findings: []dissect.Finding{{Severity: dissect.Warn, Text: "bad \x1b[H", Bit: -1}}}
	got := lineFormat{}.line(m) + lineFormat{}.tree(m)
	if strings.ContainsAny(got, "\x1b\u009b") {
		t.Errorf("line/tree output %q carries raw control characters", got)
	}
	if !strings.Contains(got, `Evil\x1b[2J\u009b31m`) || !strings.Contains(got, "InvokeMessageListener⁺") {
		t.Errorf("line output %q lacks the escaped type name or the widened mark", got)
	}
}

func BenchmarkBitString(b *testing.B) {
	b.ReportAllocs()
	data := []byte{0xb1, 0xd0, 0x07, 0x00, 0x00}
	for b.Loop() {
		bitString(data, 7, 32)
	}
}

func BenchmarkLine(b *testing.B) {
	b.ReportAllocs()
	typ := "Sample.ChatListener, Sample"
	id, v := uint32(2), uint32(1)
	m := &session.Message{N: 7, Kind: unturned.KindInvokeMessageListener, Enum: unturned.Enum{Value: 32, Bits: 6, Widened: true},
		Listener: &unturned.Listener{Type: &typ, ServerID: &id, Version: &v, Resolved: true}, PayloadBits: 88}
	for b.Loop() {
		lineFormat{}.line(m)
	}
}
