package unturned

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEncoderSpecVectors checks the Encoder against the computed examples of
// wire.md 3 and the marker's wire form of wire.md 6.
func TestEncoderSpecVectors(t *testing.T) {
	e := Encoder{P: Default()}
	gwf := append(bytes.Repeat([]byte{0}, 961), unhex(t, "0a 00 48 65 6c 6c 6f 21")...)
	tests := []struct {
		name string
		got  []byte
		want []byte
	}{
		{"Kicked(bye)", e.Kicked(false, "bye"), unhex(t, "8c 00 00 62 79 65")},
		{"Rejected(WRONG_VERSION)", e.Rejected(false, RejectWrongVersion, "3.26.3.4"), unhex(t, "6a 70 00 33 2e 32 36 2e 33 2e 34")},
		{"Accepted", e.Accepted(false, 0x01020304, 27015, nil), unhex(t, "89 60 40 20 e0 30 0d")},
		{"GetWorkshopFiles", e.GetWorkshopFiles(false, nil), gwf},
		// wire.md 6: the magic on the wire, aligned, is "USMN".
		{"GetWorkshopFiles+marker", e.GetWorkshopFiles(true, nil), append(append([]byte{}, gwf...), unhex(t, "55 53 4d 4e 01 00 00 00")...)},
		// widened C→S GetWorkshopFiles is still 4 bits (wire.md 4.1).
		{"GetWorkshopFiles widened enum", e.Raw(dissect.C2S, true, 0, nil), []byte{0}},
		// Verify = 8 in 5 bits; widened: 6 bits, same value.
		{"Verify", e.Verify(false), []byte{0x08}},
		{"Verify widened", e.Verify(true), []byte{0x08}},
		// C→S invoke listener 17 in 5 bits: 10001, then Has_Client_ID=0, then a 0-bit id.
		{"InvokeC2S widened", e.InvokeC2S(true, Invoke{}, nil), []byte{0x11}},
		// S→C invoke listener 32 in 6 bits: 100000, Has_Listener_Definition=1, then count 2 in 5 bits.
		{"InvokeS2C def", e.InvokeS2C(true, Invoke{HasDefinition: true, IDBits: 2, ServerID: 1, Type: "A", Version: 7}, nil),
			// bits: 0..5 enum=32 (000001), 6 def=1, 7..11 count=2 (01000), 12..13 id=1 (10), 14 empty=0,
			// 15..25 len-1=0, pad to 32, 'A', then version 7.
			unhex(t, "60 11 00 00 41 07 00 00 00")},
		// enum 18 (5 bits), mode 2, Serverside_Listener_ID 5 in 3 bits: LSB first 01001 01 101.
		{"TellServerMissingListener", e.Negotiate(dissect.C2S, true, Negotiate{Mode: TellServerMissingListener, ServerID: 5, IDBits: 3}), unhex(t, "d2 02")},
		// enum 12, then the empty string is one bit 1 (wire.md 1.3): 0x0c | 1<<5.
		{"Kicked empty", e.Kicked(false, ""), []byte{0x2c}},
		// widened S→C Kicked: 12 in 6 bits, then the string from bit 6.
		{"Kicked widened empty", e.Kicked(true, ""), []byte{0x4c}},
	}
	for _, tt := range tests {
		if !bytes.Equal(tt.got, tt.want) {
			t.Errorf("%s = % x; want % x", tt.name, tt.got, tt.want)
		}
	}
}
