package netpak

import (
	"math"
	"reflect"
	"testing"
)

func TestSpans(t *testing.T) {
	// Kicked("bye"): 5-bit enum at bits 0..5, the string at bits 5..48.
	r := NewReader(mustHex("8c 00 00 62 79 65"))
	sp := &Spans{}
	at := r.Pos()
	sp.AddUint("Message", at, r, uint64(r.Bits(5)))
	at = r.Pos()
	sp.AddString("Reason", at, r, r.String(11))
	sp.AddSpan(Span{Name: "Trailer", Bit: 48, Bits: 0})
	want := []Span{
		{"Message", 0, 5, uint64(12)},
		{"Reason", 5, 43, "bye"},
		{"Trailer", 48, 0, nil},
	}
	if !reflect.DeepEqual(sp.List, want) {
		t.Errorf("spans = %+v; want %+v", sp.List, want)
	}
	if got := sp.List[1].End(); got != 48 {
		t.Errorf("Reason.End() = %d; want 48", got)
	}
	if !sp.Enabled() {
		t.Error("(&Spans{}).Enabled() = false; want true")
	}
	sp.Reset()
	if len(sp.List) != 0 {
		t.Errorf("after Reset, %d spans; want 0", len(sp.List))
	}
	// The typed adders record their Go types.
	sp.AddInt("i", 0, r, -1)
	sp.AddFloat("f", 0, r, 0.5)
	sp.AddBool("b", 0, r, true)
	sp.AddBytes("raw", 0, r, []byte{1})
	for i, v := range []any{int64(-1), 0.5, true, []byte{1}} {
		if !reflect.DeepEqual(sp.List[i].Value, v) || sp.List[i].Bits != 48 {
			t.Errorf("span %d = %+v; want value %v over 48 bits", i, sp.List[i], v)
		}
	}
}

func TestSpansNil(t *testing.T) {
	var sp *Spans
	r := NewReader([]byte{1})
	if sp.Enabled() {
		t.Error("(*Spans)(nil).Enabled() = true; want false")
	}
	allocs := testing.AllocsPerRun(100, func() {
		sp.Add("a", 0, r, nil)
		sp.AddUint("a", 0, r, 1<<40)
		sp.AddInt("a", 0, r, -1<<40)
		sp.AddFloat("a", 0, r, math.Pi)
		sp.AddString("a", 0, r, "x")
		sp.AddSpan(Span{})
		sp.Reset()
	})
	if allocs != 0 {
		t.Errorf("recording into a nil *Spans allocates %v times; want 0", allocs)
	}
}

// TestQuaternionRoundTrip checks the smallest-three encoding against a few
// rotations: each component comes back within one quantisation step, up to
// the sign of the whole quaternion (q and −q are one rotation).
func TestQuaternionRoundTrip(t *testing.T) {
	s := float32(math.Sqrt(0.5))
	for _, q := range []Quaternion{
		{0, 0, 0, 1}, {s, 0, 0, s}, {0, -s, 0, s}, {0.5, 0.5, 0.5, 0.5}, {-0.5, 0.5, -0.5, -0.5},
		{0.1, 0.2, 0.3, float32(math.Sqrt(1 - 0.14))},
	} {
		for _, bits := range []int{9, 12, 16} {
			w := NewWriter()
			w.Quaternion(q, bits)
			if w.Len() != 2+3*bits {
				t.Errorf("Quaternion(%v, %d) wrote %d bits; want %d", q, bits, w.Len(), 2+3*bits)
			}
			got := NewReader(w.Bytes()).Quaternion(bits)
			// The dropped component is rebuilt from the other three, so
			// allow a few steps of error: 2·√2/(2^(bits−1)−1) is generous.
			tol := 3 * math.Sqrt2 / float64(mask(bits-1))
			if !quatNear(got, q, tol) && !quatNear(got, Quaternion{-q.X, -q.Y, -q.Z, -q.W}, tol) {
				t.Errorf("Quaternion round trip of %v at %d bits = %v", q, bits, got)
			}
		}
	}
}

func quatNear(a, b Quaternion, tol float64) bool {
	return math.Abs(float64(a.X-b.X)) <= tol && math.Abs(float64(a.Y-b.Y)) <= tol &&
		math.Abs(float64(a.Z-b.Z)) <= tol && math.Abs(float64(a.W-b.W)) <= tol
}

func TestNormalVector3RoundTrip(t *testing.T) {
	s := float32(math.Sqrt(1.0 / 3))
	for _, v := range []Vector3{{1, 0, 0}, {-1, 0, 0}, {0, 0.6, -0.8}, {s, -s, s}, {-0.48, 0.6, 0.64}} {
		w := NewWriter()
		w.NormalVector3(v, 9)
		if w.Len() != 21 {
			t.Errorf("NormalVector3(%v, 9) wrote %d bits; want 21", v, w.Len())
		}
		got := NewReader(w.Bytes()).NormalVector3(9)
		tol := 3 * math.Sqrt2 / 255
		if math.Abs(float64(got.X-v.X)) > tol || math.Abs(float64(got.Y-v.Y)) > tol || math.Abs(float64(got.Z-v.Z)) > tol {
			t.Errorf("NormalVector3 round trip of %v = %v", v, got)
		}
	}
}

func TestVectorAsYaw(t *testing.T) {
	w := NewWriter()
	w.VectorAsYaw(Vector3{3, 0, 0}, 8)
	if got, want := w.Bytes(), mustHex("00 00 40 40 40"); string(got) != string(want) {
		t.Errorf("VectorAsYaw((3,0,0), 8) = % x; want % x", got, want)
	}
	got := NewReader(w.Bytes()).VectorAsYaw(8)
	if math.Abs(float64(got.X-3)) > 1e-6 || got.Y != 0 || math.Abs(float64(got.Z)) > 1e-6 {
		t.Errorf("VectorAsYaw read = %v; want (3, 0, 0)", got)
	}
}

// TestResetClears checks that Reset reuses a Reader cleanly after an error,
// including for inputs shorter than one 8-byte load.
func TestResetClears(t *testing.T) {
	var r Reader
	r.Reset([]byte{0xff})
	r.Bits(9)
	if r.Err() == nil {
		t.Fatal("Bits(9) of 1 byte: no error")
	}
	r.Reset([]byte{0x5a, 0x01})
	if v := r.Bits(9); v != 0x15a || r.Err() != nil {
		t.Errorf("after Reset, Bits(9) = %#x, %v; want 0x15a", v, r.Err())
	}
	// Sub of a short input reads the same bits as its parent.
	if v := r.Sub(1, 8).Bits(8); v != 0xad {
		t.Errorf("Sub(1,8).Bits(8) = %#x; want 0xad", v)
	}
}

// TestSpansBare: a bare Spans records every adder's name and bits as the
// valued one does, with no value, and allocates nothing per field once
// its list has room.
func TestSpansBare(t *testing.T) {
	r := NewReader(mustHex("8c 00 00 62 79 65"))
	r.Skip(48)
	one, bye := []byte{1}, []byte("bye")
	adders := []struct {
		name string
		add  func(s *Spans)
	}{
		{"Add", func(s *Spans) { s.Add("a", 1, r, uint64(1<<40)) }},
		{"AddUint", func(s *Spans) { s.AddUint("u", 2, r, 1<<40) }},
		{"AddInt", func(s *Spans) { s.AddInt("i", 3, r, -1<<40) }},
		{"AddFloat", func(s *Spans) { s.AddFloat("f", 4, r, math.Pi) }},
		{"AddBool", func(s *Spans) { s.AddBool("b", 5, r, true) }},
		{"AddString", func(s *Spans) { s.AddString("s", 6, r, "bye") }},
		{"AddBytes", func(s *Spans) { s.AddBytes("raw", 7, r, one) }},
		{"AddText", func(s *Spans) { s.AddText("t", 8, r, bye) }},
	}
	for _, tc := range adders {
		t.Run(tc.name, func(t *testing.T) {
			valued, bare := &Spans{}, &Spans{Bare: true}
			tc.add(valued)
			tc.add(bare)
			if len(valued.List) != 1 || len(bare.List) != 1 {
				t.Fatalf("spans: valued %d, bare %d; want 1 each", len(valued.List), len(bare.List))
			}
			v, b := valued.List[0], bare.List[0]
			if v.Value == nil {
				t.Errorf("valued span %+v has no value", v)
			}
			if b.Value != nil || b.Name != v.Name || b.Bit != v.Bit || b.Bits != v.Bits {
				t.Errorf("bare span = %+v; want %+v without its value", b, v)
			}
			bare.List = make([]Span, 0, 1)
			if allocs := testing.AllocsPerRun(100, func() { bare.Reset(); tc.add(bare) }); allocs != 0 && tc.name != "Add" {
				t.Errorf("a bare %s allocates %v times; want 0", tc.name, allocs)
			}
		})
	}
	// AddText keeps the string of its bytes when valued.
	s := &Spans{}
	s.AddText("t", 0, r, []byte("bye"))
	if s.List[0].Value != "bye" {
		t.Errorf("AddText value = %#v; want \"bye\"", s.List[0].Value)
	}
}
