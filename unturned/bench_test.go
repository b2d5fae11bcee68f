package unturned

import (
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

// benchInvoke is an S→C invoke with a definition and a 32-byte payload, the
// message a USMN connection sends most.
func benchInvoke() []byte {
	return Encoder{P: Default()}.InvokeS2C(true, Invoke{HasDefinition: true, IDBits: 3, ServerID: 5, Type: "Sample.ChatListener, Sample", Version: 1}, make([]byte, 32))
}

func BenchmarkDecodeInvoke(b *testing.B) {
	p, data := Default(), benchInvoke()
	st := State{Widened: true, IDBits: 3, IDKnown: true}
	var d Decoded
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		d = Decoded{Findings: d.Findings[:0]}
		Decode(p, dissect.S2C, st, data, nil, &d)
	}
	if d.Kind != KindInvokeMessageListener || !d.Clean() {
		b.Fatalf("decoded %v, findings %v", d.Kind, d.Findings)
	}
}

func BenchmarkDecodeInvokeNoDefinition(b *testing.B) {
	p := Default()
	data := Encoder{P: p}.InvokeS2C(true, Invoke{IDBits: 3, ServerID: 5}, make([]byte, 32))
	st := State{Widened: true, IDBits: 3, IDKnown: true}
	var d Decoded
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		d = Decoded{Findings: d.Findings[:0]}
		Decode(p, dissect.S2C, st, data, nil, &d)
	}
}

func BenchmarkDecodeInvokeSpans(b *testing.B) {
	p, data := Default(), benchInvoke()
	st := State{Widened: true, IDBits: 3, IDKnown: true}
	var d Decoded
	var sp netpak.Spans
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		d = Decoded{Findings: d.Findings[:0]}
		sp.List = sp.List[:0]
		Decode(p, dissect.S2C, st, data, &sp, &d)
	}
}

// BenchmarkDecodeBothWidths is what widened-enum inference does: decode a
// message both ways and keep the clean reading.
func BenchmarkDecodeBothWidths(b *testing.B) {
	p, data := Default(), benchInvoke()
	var d Decoded
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range []bool{false, true} {
			d = Decoded{Findings: d.Findings[:0]}
			Decode(p, dissect.S2C, State{Widened: w, IDBits: 3, IDKnown: true}, data, nil, &d)
		}
	}
}

func BenchmarkDecodeGetWorkshopFiles(b *testing.B) {
	p := Default()
	data := Encoder{P: p}.GetWorkshopFiles(true, nil)
	var d Decoded
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		d = Decoded{Findings: d.Findings[:0]}
		Decode(p, dissect.C2S, State{}, data, nil, &d)
	}
}
