package netpak_test

import (
	"errors"
	"fmt"

	"github.com/usmnscope/usmnscope/netpak"
)

// Decode a Kicked message (wire.md 3): the 5-bit EClientMessage 12, then
// String("bye").
func ExampleReader() {
	r := netpak.NewReader([]byte{0x8c, 0x00, 0x00, 0x62, 0x79, 0x65})
	msg := r.Bits(5)
	reason := r.String(netpak.DefaultStringBits)
	if err := r.Err(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(msg, reason, r.Pos())
	// Output: 12 bye 48
}

// Encode Accepted(0x01020304, 27015) (wire.md 3): the fields run across
// byte boundaries and the last byte is zero-padded.
func ExampleWriter() {
	w := netpak.NewWriter()
	w.Bits(9, 5)
	w.UInt32(0x01020304)
	w.UInt16(27015)
	fmt.Printf("% x (%d bits)\n", w.Bytes(), w.Len())
	// Output: 89 60 40 20 e0 30 0d (53 bits)
}

// A cut message fails with an error that says where and by how much.
func ExampleShortError() {
	r := netpak.NewReader([]byte{0x8c, 0x00, 0x00, 0x62})
	r.Bits(5)
	r.String(netpak.DefaultStringBits)
	var se *netpak.ShortError
	fmt.Println(r.Err(), errors.Is(r.Err(), netpak.ErrShort), errors.As(r.Err(), &se), r.Pos())
	// Output: need 24 bits at bit 24, have 8 true true 5
}

// Record each field as a span for a field tree.
func ExampleSpans() {
	r := netpak.NewReader([]byte{0x8c, 0x00, 0x00, 0x62, 0x79, 0x65})
	sp := &netpak.Spans{}
	at := r.Pos()
	sp.AddUint("Message", at, r, uint64(r.Bits(5)))
	at = r.Pos()
	sp.AddString("Reason", at, r, r.String(netpak.DefaultStringBits))
	for _, s := range sp.List {
		fmt.Printf("%s bits %d..%d = %v\n", s.Name, s.Bit, s.End(), s.Value)
	}
	// Output:
	// Message bits 0..5 = 12
	// Reason bits 5..48 = bye
}

// Sub bounds a payload; reads past its end fail even if the parent has more.
func ExampleReader_Sub() {
	r := netpak.NewReader([]byte{0xff, 0xff})
	p := r.Sub(4, 6)
	fmt.Println(p.Bits(6), p.Bits(1), p.Err())
	// Output: 63 0 need 1 bit at bit 10, have 0
}

func ExampleGUID() {
	w := netpak.NewWriter()
	w.GUID(netpak.GUID{0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff})
	fmt.Printf("% x\n", w.Bytes())
	fmt.Println(netpak.NewReader(w.Bytes()).GUID())
	// Output:
	// 55 44 77 66 33 22 11 00 cc dd ee ff 88 99 aa bb
	// 00112233-4455-6677-8899-aabbccddeeff
}

func ExampleCountBits() {
	fmt.Println(netpak.CountBits(0), netpak.CountBits(8), netpak.CountBits(255), netpak.CountBits(272))
	// Output: 0 4 8 9
}
