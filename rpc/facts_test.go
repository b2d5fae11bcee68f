package rpc

import "testing"

// TestFraming: the wire bytes, the framing among them and whether the
// envelope's fields split the rest, for a plain, an encrypted and a
// compressed frame.
func TestFraming(t *testing.T) {
	flags := 3
	for _, tc := range []struct {
		name          string
		r             Record
		wire, framing int
		split         bool
	}{
		{"plain", Record{Len: 10, Envelope: make([]byte, 10)}, 14, 4, true},
		{"encrypted", Record{Len: 80, Envelope: make([]byte, 16), Transform: &Transform{Flags: &flags, Encrypted: true, Decrypted: true}}, 84, 53, true},
		{"undecrypted", Record{Len: 80, Transform: &Transform{Flags: &flags, Encrypted: true}}, 84, 53, false},
		{"gzip", Record{Len: 20, Envelope: make([]byte, 30), Transform: &Transform{Flags: &flags, Gzip: true}}, 24, 5, false},
		{"short", Record{Len: 0, Transform: &Transform{Flags: &flags, Encrypted: true}}, 4, 4, false},
	} {
		w, f, s := tc.r.Framing()
		if w != tc.wire || f != tc.framing || s != tc.split {
			t.Errorf("%s: Framing() = %d, %d, %v; want %d, %d, %v", tc.name, w, f, s, tc.wire, tc.framing, tc.split)
		}
	}
}
