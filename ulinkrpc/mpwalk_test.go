package ulinkrpc

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// mpWalkInputs are MemoryPack payloads of every shape a member is guessed
// to be, their shorter cuts and random bytes.
func mpWalkInputs() [][]byte {
	nested := MPEncodeObject(true, MPString("in"), MPInt64(-9))
	ins := [][]byte{
		vecLogin,
		MPEncodeObject(true, MPString("player-5"), MPInt32(73)),
		MPEncodeObject(true, MPString("tick"), MPInt64(1767268803063), MPFloat64(116.4)),
		MPEncodeObject(true, []byte{7}, []byte{0xfe, 0xff}, []byte{1, 2, 3}, nil, MPList([]byte{1, 2}, []byte{3, 4})),
		MPEncodeObject(true, MPList(MPString("a"), MPString("b\x01"), MPInt32(0)), nested),
		MPEncodeObject(true, MPList(nested, MPNullObject())),
		MPNullObject(), {0}, {0xfa}, {1, 0x7f},
	}
	for n := range len(vecLogin) {
		ins = append(ins, vecLogin[:n])
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(3) == 0 {
				b[i] = byte(rng.IntN(6))
			}
		}
		ins = append(ins, b)
	}
	return ins
}

// TestMPWalk: one MPWalk, reused, lists every input's members as
// MPObject.Fields lists them (names, spans, values) and fails as
// CutMemoryPack does.
func TestMPWalk(t *testing.T) {
	var w MPWalk
	const base = 17
	for _, b := range mpWalkInputs() {
		o, want := CutMemoryPack(b)
		got := w.Cut(b, "payload")
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("MPWalk.Cut(%x) = %v; want %v", b, got, want)
			continue
		}
		if want != nil {
			continue
		}
		var fs []string
		for i := range w.Entries {
			fs = append(fs, fmt.Sprintf("%#v", w.Field(&w.Entries[i], base)))
		}
		var wfs []string
		for _, f := range o.Fields("payload", base) {
			wfs = append(wfs, fmt.Sprintf("%#v", f))
		}
		if fmt.Sprint(fs) != fmt.Sprint(wfs) {
			t.Errorf("MPWalk.Cut(%x) fields = %v; want %v", b, fs, wfs)
		}
	}
}

// TestMPWalkKind: each guess is spelled from the bytes its value comes
// from.
func TestMPWalkKind(t *testing.T) {
	b := MPEncodeObject(true, MPString("ann"), []byte{200}, MPInt32(-2), MPEncodeObject(true, MPString("q"), []byte{9}),
		[]byte{1, 2, 3}, MPList(MPString("x"), MPString("y")))
	var w MPWalk
	if err := w.Cut(b, "p"); err != nil {
		t.Fatalf("MPWalk.Cut = %v", err)
	}
	want := []string{`p.0 1 "ann"`, `p.1 2 200`, `p.2 2 -2`, `p.3 0 ""`, `p.3.0 1 "q"`, `p.3.1 2 9`, `p.4 3 "\x01\x02\x03"`, `p.5 4 ""`}
	if len(w.Entries) != len(want) {
		t.Fatalf("MPWalk.Cut entries = %d; want %d", len(w.Entries), len(want))
	}
	for i := range w.Entries {
		e := &w.Entries[i]
		k, raw := w.Kind(e)
		got := fmt.Sprintf("%s %d %q", w.Name(e), k, raw)
		if k == MPInt {
			got = fmt.Sprintf("%s %d %d", w.Name(e), k, w.Int(raw))
		}
		if got != want[i] {
			t.Errorf("MPWalk entry %d = %s; want %s", i, got, want[i])
		}
	}
}

// TestDecodePayloadCut: with Cut, a MemoryPack payload cut without a
// schema is listed there instead of Object and Fields, with the same
// encoding and findings.
func TestDecodePayloadCut(t *testing.T) {
	var w MPWalk
	for _, b := range mpWalkInputs()[:12] {
		want := DecodePayload(b, 9, PayloadConfig{})
		got := DecodePayload(b, 9, PayloadConfig{Cut: &w})
		if got.Encoding != want.Encoding || fmt.Sprint(got.Findings) != fmt.Sprint(want.Findings) {
			t.Errorf("DecodePayload(%x, Cut) = %v %v; want %v %v", b, got.Encoding, got.Findings, want.Encoding, want.Findings)
		}
		if cut := want.Object != nil; (got.Cut != nil) != cut || got.Object != nil || got.Fields != nil && cut {
			t.Errorf("DecodePayload(%x, Cut): Cut %v, Object %v; want the cut in Cut alone", b, got.Cut != nil, got.Object != nil)
		}
		if got.Cut != nil && len(got.Cut.Entries) != len(want.Fields) {
			t.Errorf("DecodePayload(%x, Cut) entries = %d; want %d", b, len(got.Cut.Entries), len(want.Fields))
		}
	}
}

// TestCutManyMembers: objects of more members than the cutter keeps on
// the stack, nested in one another, keep each one's lengths.
func TestCutManyMembers(t *testing.T) {
	inner := make([][]byte, 18)
	for i := range inner {
		inner[i] = MPString(fmt.Sprint("s", i))
	}
	outer := make([][]byte, 20)
	for i := range outer {
		outer[i] = MPInt32(int32(i))
	}
	outer[3] = MPEncodeObject(true, inner...)
	b := MPEncodeObject(true, outer...)
	for _, in := range [][]byte{b, b[:len(b)-1]} {
		o, err := CutMemoryPack(in)
		var w MPWalk
		if werr := w.Cut(in, "p"); fmt.Sprint(werr) != fmt.Sprint(err) {
			t.Errorf("MPWalk.Cut(%d bytes) = %v; want %v", len(in), werr, err)
		}
		if err != nil {
			continue
		}
		if len(o.Members) != 20 || o.Members[3].Object == nil || len(o.Members[3].Object.Members) != 18 {
			t.Fatalf("CutMemoryPack(20 members, 18 nested) = %d members", len(o.Members))
		}
		for i, m := range o.Members {
			if m.Len != len(outer[i]) {
				t.Errorf("member %d length = %d; want %d", i, m.Len, len(outer[i]))
			}
		}
		for i, m := range o.Members[3].Object.Members {
			if m.Value != fmt.Sprint("s", i) {
				t.Errorf("member 3.%d = %v; want s%d", i, m.Value, i)
			}
		}
		if len(w.Entries) != 38 {
			t.Errorf("MPWalk.Cut entries = %d; want 38", len(w.Entries))
		}
	}
}

// TestCutMemberCountField: a MemoryPack object cut short before its
// header names the field that failed (made only then).
func TestCutMemberCountField(t *testing.T) {
	_, err := CutMemoryPack(nil)
	var e *Error
	if !errors.As(err, &e) || e.Field != "member_count" {
		t.Fatalf("CutMemoryPack(nil) error %#v; want the field member_count", err)
	}
}
