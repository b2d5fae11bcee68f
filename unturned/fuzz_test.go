package unturned

import (
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

// FuzzDecodeMessage decodes arbitrary bytes in any direction and context and
// checks that decoding never panics, that spans and findings stay inside the
// message, and that decoding with and without spans agrees. The seed corpus
// is every message form the Encoder writes (testdata/fuzz/FuzzDecodeMessage
// holds a committed copy of some).
func FuzzDecodeMessage(f *testing.F) {
	for _, widened := range []bool{false, true} {
		for _, c := range cases(Default(), widened) {
			f.Add(c.data, c.dir == dissect.S2C, c.st.Widened, uint8(c.st.IDBits))
		}
	}
	p := Default()
	f.Fuzz(func(t *testing.T, data []byte, s2c, widened bool, idBits uint8) {
		dir := dissect.C2S
		if s2c {
			dir = dissect.S2C
		}
		st := State{Widened: widened, IDBits: int(idBits % 40), IDKnown: true}
		var d Decoded
		var sp netpak.Spans
		Decode(p, dir, st, data, &sp, &d)
		checkInvariants(t, "fuzz", &d, sp.List, len(data))
		var bare Decoded
		Decode(p, dir, st, data, nil, &bare)
		if bare.Kind != d.Kind || bare.Enum != d.Enum || len(bare.Findings) != len(d.Findings) ||
			bare.PayloadBit != d.PayloadBit || bare.PayloadBits != d.PayloadBits || bare.Clean() != d.Clean() {
			t.Fatalf("with spans: %v %+v %v; without: %v %+v %v", d.Kind, d.Enum, d.Findings, bare.Kind, bare.Enum, bare.Findings)
		}
		for i := range d.Findings {
			if d.Findings[i] != bare.Findings[i] {
				t.Fatalf("finding %d: with spans %+v; without %+v", i, d.Findings[i], bare.Findings[i])
			}
		}
		// Spans without values (netpak.Spans.Bare, what stats reads): the
		// same names and bits, no values, and the decoding of no spans.
		var nv Decoded
		nsp := netpak.Spans{Bare: true}
		Decode(p, dir, st, data, &nsp, &nv)
		if len(nsp.List) != len(sp.List) {
			t.Fatalf("bare spans: %d; valued: %d", len(nsp.List), len(sp.List))
		}
		for i, b := range nsp.List {
			v := sp.List[i]
			if b.Value != nil || b.Name != v.Name || b.Bit != v.Bit || b.Bits != v.Bits {
				t.Fatalf("bare span %d = %+v; want %+v without its value", i, b, v)
			}
		}
		if nv.Kind != bare.Kind || nv.Enum != bare.Enum || len(nv.Findings) != len(bare.Findings) || nv.Clean() != bare.Clean() {
			t.Fatalf("bare spans: %v %+v %v; no spans: %v %+v %v", nv.Kind, nv.Enum, nv.Findings, bare.Kind, bare.Enum, bare.Findings)
		}
	})
}
