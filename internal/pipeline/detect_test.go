package pipeline

import (
	"bytes"
	"testing"
)

// gwf is a framed vanilla GetWorkshopFiles (wire.md 3): 03 c9 (969), 961
// zero bytes, 0a 00 "Hello!", then a USMN marker as a trailer.
func gwf() []byte {
	b := []byte{0x03, 0xcd}
	b = append(b, make([]byte, 961)...)
	b = append(b, gwfTail...)
	return append(b, 0x55, 0x53, 0x4d, 0x4e) // trailer: not looked at
}

// TestDetectGetWorkshopFiles: every cut of a GetWorkshopFiles is
// undecided, the whole one matches, and one changed byte anywhere in the
// header and vanilla body makes it differ as soon as that byte is seen.
func TestDetectGetWorkshopFiles(t *testing.T) {
	full := gwf()
	for n := 0; n < 2+gwfLen; n++ {
		if v := detectGetWorkshopFiles(full[:n]); v != undecided {
			t.Fatalf("detect(first %d bytes of a GetWorkshopFiles) = %d; want undecided", n, v)
		}
	}
	if v := detectGetWorkshopFiles(full); v != matches {
		t.Errorf("detect(GetWorkshopFiles) = %d; want matches", v)
	}
	for i := 2; i < 2+gwfLen; i++ {
		bad := bytes.Clone(full)
		bad[i] ^= 0x10
		if v := detectGetWorkshopFiles(bad[:i+1]); v != differs {
			t.Fatalf("detect(GetWorkshopFiles with byte %d changed, cut after it) = %d; want differs", i, v)
		}
	}
	for _, tt := range []struct {
		in   []byte
		want verdict
	}{
		{[]byte{0x03}, undecided},
		{[]byte{0x03, 0xc8}, differs}, // 968 bytes: shorter than the vanilla body
		{[]byte{0x00, 0x05, 1, 2, 3, 4, 5}, differs},
		{[]byte("GET / HTTP/1.1\r\n"), differs},
		{[]byte{0xff, 0xff, 0}, undecided},
	} {
		if v := detectGetWorkshopFiles(tt.in); v != tt.want {
			t.Errorf("detect(% x) = %d; want %d", tt.in, v, tt.want)
		}
	}
}
