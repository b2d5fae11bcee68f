package netpak

import (
	"strings"
	"testing"
)

// benchWidths are 64 field widths from 1 to 32 bits in a scrambled order.
var benchWidths = func() (w [64]int) {
	for i := range w {
		w[i] = 1 + (i*7+3)%32
	}
	return w
}()

// BenchmarkBits reads fields of mixed widths, 1 to 32 bits in a scrambled
// order, over a 1 MiB buffer: the decoders' hot path. Target: ≤ 3 ns/field,
// 0 allocs.
func BenchmarkBits(b *testing.B) {
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 131)
	}
	r := NewReader(buf)
	var sum uint32
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuNanos()
	for i := 0; i < b.N; i++ {
		if r.Remaining() < 64*32 {
			r.Reset(buf)
		}
		for _, n := range benchWidths {
			sum += r.Bits(n)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchWidths)), "ns/field")
	b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N*len(benchWidths)), "cpu-ns/field")
	if r.Err() != nil || sum == 1 {
		b.Log(r.Err(), sum)
	}
}

// BenchmarkString reads a 5-bit enum then a 16-byte String, as a vanilla
// message with a short reason would.
func BenchmarkString(b *testing.B) {
	w := NewWriter()
	for range 1024 {
		w.Bits(12, 5)
		w.String("Kicked for AFK!!", DefaultStringBits)
	}
	buf := w.Bytes()
	var r Reader
	r.Reset(buf)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuNanos()
	for i := 0; i < b.N; i++ {
		if i%1024 == 0 {
			r.Reset(buf)
		}
		r.Bits(5)
		if len(r.StringBytes(DefaultStringBits)) != 16 {
			b.Fatal(r.Err())
		}
	}
	b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkStringAlloc is BenchmarkString with the conversion to a Go
// string, which allocates.
func BenchmarkStringAlloc(b *testing.B) {
	w := NewWriter()
	w.String(strings.Repeat("x", 32), DefaultStringBits)
	buf := w.Bytes()
	var r Reader
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r.Reset(buf)
		if len(r.String(DefaultStringBits)) != 32 {
			b.Fatal(r.Err())
		}
	}
}

// BenchmarkClampedVector3 reads positions at the game's default (13, 7).
func BenchmarkClampedVector3(b *testing.B) {
	w := NewWriter()
	for i := range 4096 {
		w.ClampedVector3(Vector3{float32(i) / 3, -float32(i), 12.5}, 13, 7)
	}
	buf := w.Bytes()
	var r Reader
	r.Reset(buf)
	var sum float32
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuNanos()
	for i := 0; i < b.N; i++ {
		if i%4096 == 0 {
			r.Reset(buf)
		}
		sum += r.ClampedVector3(13, 7).Z
	}
	b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op")
	if r.Err() != nil || sum == 1 {
		b.Log(r.Err(), sum)
	}
}

// BenchmarkSpansNil records spans into a nil *Spans: what every decode pays
// when no field tree was asked for. Target: 0 allocs.
func BenchmarkSpansNil(b *testing.B) {
	buf := make([]byte, 1<<16)
	var r Reader
	var sp *Spans
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if i%1024 == 0 {
			r.Reset(buf)
		}
		at := r.Pos()
		v := r.Bits(17)
		sp.AddUint("field", at, &r, uint64(v))
		at = r.Pos()
		sp.AddBool("flag", at, &r, r.Bit())
	}
}

// BenchmarkSpans records two spans per iteration into a reused Spans.
func BenchmarkSpans(b *testing.B) {
	buf := make([]byte, 1<<16)
	var r Reader
	sp := &Spans{}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if i%1024 == 0 {
			r.Reset(buf)
			sp.Reset()
		}
		at := r.Pos()
		v := r.Bits(17)
		sp.AddUint("field", at, &r, uint64(v))
		at = r.Pos()
		sp.AddBool("flag", at, &r, r.Bit())
	}
}

// BenchmarkWriter writes the same mixed widths as BenchmarkBits.
func BenchmarkWriter(b *testing.B) {
	w := NewWriter()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if w.Len() > 8<<20 {
			w.Reset()
		}
		for k, n := range benchWidths {
			w.Bits(uint32(k*0x9e3779b9), n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchWidths)), "ns/field")
}
