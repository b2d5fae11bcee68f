package unturned_test

import (
	"fmt"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/unturned"
)

// Decode wire.md 3's Kicked("bye") and print its fields with their bit spans.
func ExampleDecode() {
	data := []byte{0x8c, 0x00, 0x00, 0x62, 0x79, 0x65}
	var d unturned.Decoded
	var spans netpak.Spans
	unturned.Decode(unturned.Default(), dissect.S2C, unturned.State{}, data, &spans, &d)
	fmt.Println(d.Kind, d.Summary(), d.Clean())
	for _, s := range spans.List {
		fmt.Printf("%-6s bit %2d +%2d %v\n", s.Name, s.Bit, s.Bits, s.Value)
	}
	// Output:
	// Kicked Kicked "bye" true
	// enum   bit  0 + 5 12
	// reason bit  5 +43 bye
}

// Build a widened S→C invoke with the Encoder and decode its header.
func ExampleEncoder_InvokeS2C() {
	e := unturned.Encoder{P: unturned.Default()}
	msg := e.InvokeS2C(true, unturned.Invoke{HasDefinition: true, IDBits: 1, ServerID: 1, Type: "Sample.ChatListener", Version: 2}, []byte("hi"))
	var d unturned.Decoded
	unturned.Decode(unturned.Default(), dissect.S2C, unturned.State{Widened: true}, msg, nil, &d)
	fmt.Println(d.Enum.Value, d.Enum.Bits, d.Summary())
	// Output:
	// 32 6 srv#1 Sample.ChatListener v2 +def 16 payload bits
}
