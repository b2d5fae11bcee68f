package lp

import (
	"bytes"
	"testing"
)

// two is SystemSockets' rule (wire.md 2): 2-byte big-endian lengths, two
// messages walked whole and a third header; two whole messages at the end.
var two = Rule{Width: 2, Limit: 16, Whole: 2, Header: true, EndWhole: 2}

// four is ULinkRPC's (ulinkrpc.md 2): 4-byte lengths, three whole frames
// that pass Valid (here: start with 'F'); one whole frame at the end.
var four = Rule{Width: 4, Limit: 16, Whole: 3, EndWhole: 1, Valid: func(b []byte) bool { return b[0] == 'F' }}

func h2(n int) []byte         { return []byte{byte(n >> 8), byte(n)} }
func h4(n int) []byte         { return []byte{0, 0, byte(n >> 8), byte(n)} }
func cat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

func TestChain(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    Rule
		in   []byte
		want Result
	}{
		{"2: two messages and a header", two, cat(h2(1), []byte("a"), h2(2), []byte("bb"), h2(3)), Accept},
		{"2: the third header cut", two, cat(h2(1), []byte("a"), h2(2), []byte("bb"), []byte{0}), Undecided},
		{"2: a zero length", two, cat(h2(1), []byte("a"), h2(0)), Reject},
		{"2: past the limit", two, h2(17), Reject},
		{"2: a body cut", two, cat(h2(5), []byte("ab")), Undecided},
		{"2 little-endian", Rule{Width: 2, Little: true, Limit: 16, Whole: 1, Header: true}, []byte{2, 0, 'x', 'y', 1, 0}, Accept},
		{"4: three valid frames", four, cat(h4(1), []byte("F"), h4(2), []byte("Fx"), h4(1), []byte("F")), Accept},
		{"4: an invalid frame", four, cat(h4(1), []byte("F"), h4(2), []byte("xx"), h4(1), []byte("F")), Reject},
		{"4: the third frame cut", four, cat(h4(1), []byte("F"), h4(2), []byte("Fx"), h4(3), []byte("F")), Undecided},
		{"4: a length of 2^32-1", four, []byte{0xff, 0xff, 0xff, 0xff}, Reject},
	} {
		if got := tt.r.Chain(tt.in); got != tt.want {
			t.Errorf("Chain(%s) = %d; want %d", tt.name, got, tt.want)
		}
	}
}

func TestChainEnd(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    Rule
		in   []byte
		want Result
	}{
		{"2: two messages to the end", two, cat(h2(1), []byte("a"), h2(2), []byte("bb")), Accept},
		{"2: one message", two, cat(h2(1), []byte("a")), Reject},
		{"2: a byte left over", two, cat(h2(1), []byte("a"), h2(2), []byte("bb"), []byte{0}), Reject},
		{"4: one frame to the end", four, cat(h4(2), []byte("Fz")), Accept},
		{"4: an invalid frame", four, cat(h4(2), []byte("zz")), Reject},
		{"4: nothing", four, nil, Reject},
	} {
		if got := tt.r.ChainEnd(tt.in); got != tt.want {
			t.Errorf("ChainEnd(%s) = %d; want %d", tt.name, got, tt.want)
		}
	}
}

func TestSearch(t *testing.T) {
	good := cat(h2(1), []byte("a"), h2(2), []byte("bb"), h2(3), []byte("ccc"))
	junk := []byte{0xff, 0xff, 0xff}
	if skip, found := two.Search(cat(junk, good), false); skip != 3 || !found {
		t.Errorf("Search(junk, good) = %d, %v; want 3, true", skip, found)
	}
	if skip, found := two.Search(cat(junk, h2(9)), false); skip != 3 || found {
		t.Errorf("Search(junk, a long header) = %d, %v; want 3, false (undecided)", skip, found)
	}
	if skip, found := two.Search(cat(junk, h2(9)), true); skip != 5 || found {
		t.Errorf("Search(junk, a long header, final) = %d, %v; want 5, false (all rejected)", skip, found)
	}
	if skip, found := two.Search(cat(junk, good[:len(good)-5]), true); skip != 3 || !found {
		t.Errorf("Search(junk, two messages, final) = %d, %v; want 3, true", skip, found)
	}
	if b := two.Bound(); b != 2*(2+16)+2 {
		t.Errorf("Bound() = %d; want %d", b, 2*(2+16)+2)
	}
	if b := four.Bound(); b != 3*(4+16)+4 {
		t.Errorf("Bound() = %d; want %d", b, 3*(4+16)+4)
	}
}
