package ulinkrpc

import "testing"

// TestDecodeEnvelopeValuesAllocs: DecodeEnvelopeValues boxes no field
// value for a well-formed frame (issue 28), whatever its ids.
func TestDecodeEnvelopeValuesAllocs(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
	}{
		// 01 type Request | 00 0a 3d 00 request_id 670976 | 00 00 01 f4 service_id 500 |
		// 00 00 02 00 method_id 512 | 00 00 00 03 length 3 | "abc"
		{"Request", []byte{1, 0, 0x0a, 0x3d, 0, 0, 0, 1, 0xf4, 0, 0, 2, 0, 0, 0, 0, 3, 'a', 'b', 'c'}},
		// 02 type Response | 00 0a 3d 00 request_id | 00 status Ok | 00 00 00 01 length 1 | "x" | 00 has_error
		{"Response", []byte{2, 0, 0x0a, 0x3d, 0, 0, 0, 0, 0, 1, 'x', 0}},
		// 03 type Push | 00 00 01 f4 service_id | 00 00 02 00 method_id | 00 00 00 00 length 0
		{"Push", []byte{3, 0, 0, 1, 0xf4, 0, 0, 2, 0, 0, 0, 0, 0}},
	}
	for _, tt := range tests {
		if _, err := DecodeEnvelopeValues(tt.in); err != nil {
			t.Fatalf("DecodeEnvelopeValues(%s) = %v", tt.name, err)
		}
		if n := testing.AllocsPerRun(10, func() { _, _ = DecodeEnvelopeValues(tt.in) }); n != 0 {
			t.Errorf("DecodeEnvelopeValues(%s) allocations = %v; want 0", tt.name, n)
		}
	}
}
