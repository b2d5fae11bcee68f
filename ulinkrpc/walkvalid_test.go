package ulinkrpc

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkWalkValid fails t unless WalkValid(b) is isJSON(b) and, for JSON,
// its members, names and values are Walk's, Plain and Spaced say what
// they claim, and an Int member's token is Number's value spelled.
func checkWalkValid(t *testing.T, b []byte) {
	t.Helper()
	var w, ref JSONWalk
	got, want := w.WalkValid(b, "payload"), isJSON(b)
	if got != want {
		t.Fatalf("WalkValid(%q) = %v; isJSON %v", b, got, want)
	}
	if !got {
		return
	}
	ref.Walk(b, "payload")
	if !bytes.Equal(w.Names, ref.Names) || len(w.Members) != len(ref.Members) {
		t.Fatalf("WalkValid(%q) names %q, %d members; Walk %q, %d", b, w.Names, len(w.Members), ref.Names, len(ref.Members))
	}
	for i := range w.Members {
		m, r := w.Members[i], ref.Members[i]
		isInt := m.Int
		m.Int = false
		if m != r {
			t.Fatalf("WalkValid(%q) member %d = %+v; Walk %+v", b, i, m, r)
		}
		if isInt {
			n, ok, _ := w.Number(&w.Members[i])
			if tok := string(w.Token(&w.Members[i])); !ok || tok != strconv.FormatInt(n, 10) {
				t.Fatalf("WalkValid(%q) member %d Int: token %q, value %d (%v)", b, i, tok, n, ok)
			}
		}
		if w.Plain && m.Kind == JSONString {
			if tok, txt := w.Token(&w.Members[i]), w.Text(&w.Members[i]); string(tok[1:len(tok)-1]) != string(txt) {
				t.Fatalf("WalkValid(%q) Plain, but string %q spells %q", b, tok, txt)
			}
		}
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, b)
	if spaced := !bytes.Equal(compact.Bytes(), b); spaced != w.Spaced {
		t.Fatalf("WalkValid(%q) Spaced = %v; compacts to %q", b, w.Spaced, compact.Bytes())
	}
	if w.Plain {
		for _, c := range b {
			if c >= 0x7f {
				t.Fatalf("WalkValid(%q) Plain with byte %#x", b, c)
			}
		}
		if bytes.IndexByte(b, '\\') >= 0 {
			t.Fatalf("WalkValid(%q) Plain with an escape", b)
		}
	}
}

// TestWalkValid: WalkValid is isJSON and Walk in one pass, on the
// grammar's edges, on nesting up to and past the bound, on UTF-8 and on
// random mutations of random JSON.
func TestWalkValid(t *testing.T) {
	for _, s := range validCases {
		checkWalkValid(t, []byte(s))
	}
	for _, s := range []string{`{"a":"x\u007fy"}`, "{\"a\":\"x\x7fy\"}", `{"é":1}`, "{\"\xff\":1}", `["\u202e"]`, `{"a\"b":[1,-0,1.0,123456789012345678,1234567890123456789]}`, `[-0]`, `{"a":"x y"}`} {
		checkWalkValid(t, []byte(s))
	}
	for _, d := range []int{1, 2, 63, 64, 65, 200} {
		checkWalkValid(t, []byte(strings.Repeat("[", d)+strings.Repeat("]", d)))
		checkWalkValid(t, []byte(strings.Repeat(`{"k":`, d)+"1"+strings.Repeat("}", d)))
	}
	// The nesting bound: each name repeats its parent's, so names grow
	// with the square of the depth; WalkValid alone, against isJSON.
	var w JSONWalk
	for _, d := range []int{10000, 10001} {
		b := []byte(strings.Repeat("[", d) + strings.Repeat("]", d))
		if got, want := w.WalkValid(b, "payload"), isJSON(b); got != want {
			t.Fatalf("WalkValid of %d nested arrays = %v; isJSON %v", d, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(28, 6))
	alphabet := []byte(" \t\n{}[]:,\"\\/-+.eE0123456789abfnrtuxl\x00\x1f\x7f\xc3\xa9\xff")
	for range 30000 {
		checkWalkValid(t, mutated(rng, alphabet))
	}
}

// TestWalkValidReuse: a walk that failed leaves nothing behind for the
// next.
func TestWalkValidReuse(t *testing.T) {
	var w JSONWalk
	if w.WalkValid([]byte(`{"a":[1,2,{"b":`), "payload") {
		t.Fatal("WalkValid of a cut object succeeded")
	}
	if !w.WalkValid([]byte(`{"c":true}`), "payload") || len(w.Members) != 2 || string(w.Name(&w.Members[1])) != "payload.c" {
		t.Fatalf("WalkValid after a failure: %+v %q", w.Members, w.Names)
	}
}

// FuzzWalkValid: WalkValid is isJSON and Walk.
func FuzzWalkValid(f *testing.F) {
	for _, s := range validCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !utf8.Valid(b) && len(b) > 64 {
			b = b[:64]
		}
		checkWalkValid(t, b)
	})
}
