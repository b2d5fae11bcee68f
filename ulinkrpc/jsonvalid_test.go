package ulinkrpc

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// validCases are inputs at the edges of JSON's grammar and of
// encoding/json's scanner.
var validCases = []string{
	``, ` `, `0`, `-0`, `01`, `-`, `-01`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1e-5`, `1E5`, `1e05`, `-1.5e+300`, `+1`,
	`true`, `truex`, `tru`, `false`, `fals`, `null`, `nul`, `nullnull`, `True`, `NaN`,
	`""`, `"`, `"a`, `"\"`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\x"`, `"\u00e9"`, `"\u00E9"`, `"\u00g9"`, `"\u00"`, `"\ud800"`,
	"\"tab\there\"", "\"\x00\"", "\"\x1f\"", "\"\x7f\"", "\"\xff\xfe\"", "\"é\"",
	`[]`, `[ ]`, `[`, `]`, `[1,]`, `[,1]`, `[1 2]`, `[1,2]`, ` [ 1 , [ 2 , [ ] ] ] `, `[[[]]]`, `[[]`, `[]]`,
	`{}`, `{ }`, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a":1,"b":[{}]}`, `{1:2}`, `{"a" : 1 }`,
	`{"a":1}}`, `{"a":{"b":{"c":[1,{"d":null}]}}}`, `[}`, `{]`, `{"a":1]`, `[1}`,
	"\t\n\r 1 \t\n\r", "1\x00", "\v1", `1 2`, `"a" "b"`, `{}{}`, `[]x`,
}

// TestValidJSON: validJSON is json.Valid, on the grammar's edges, on
// nesting up to and past encoding/json's bound, and on random mutations
// of random JSON.
func TestValidJSON(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := validJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Fatalf("validJSON(%q) = %v; json.Valid %v", s, got, want)
		}
	}
	for _, s := range validCases {
		check(s)
	}
	for _, d := range []int{63, 64, 65, 127, 128, 129, 200, 9999, 10000, 10001, 12000} {
		check(strings.Repeat("[", d) + strings.Repeat("]", d))
		check(strings.Repeat(`{"k":`, d) + "1" + strings.Repeat("}", d))
		check(strings.Repeat(`[{"k":`, d/2) + "1" + strings.Repeat("}]", d/2))
		check(strings.Repeat(`[{"k":`, d/2) + "1" + strings.Repeat("]}", d/2))
	}
	rng := rand.New(rand.NewPCG(6, 28))
	alphabet := []byte(" \t\n{}[]:,\"\\/-+.eE0123456789abfnrtuxl\x00\x1f\xc3\xa9")
	for range 200000 {
		check(string(mutated(rng, alphabet)))
	}
}

// mutated is a random JSON value (randValue) with up to two bytes
// changed, taken out or put in from alphabet.
func mutated(rng *rand.Rand, alphabet []byte) []byte {
	b := []byte(randValue(rng, 4))
	for range rng.IntN(3) {
		if len(b) == 0 {
			break
		}
		switch k := rng.IntN(len(b)); rng.IntN(3) {
		case 0:
			b[k] = alphabet[rng.IntN(len(alphabet))]
		case 1:
			b = append(b[:k], b[k+1:]...)
		default:
			b = append(b[:k], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[k:]...)...)
		}
	}
	return b
}

// randValue is a random JSON value nested at most depth deep.
func randValue(rng *rand.Rand, depth int) string {
	strs := []string{`""`, `"a"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\u0000"`, `"é"`, `"x y"`}
	nums := []string{"0", "-0", "1", "-12", "1.5", "1e2", "1E-2", "-12.25e+3", "123456789012345678901"}
	k := rng.IntN(7)
	if depth == 0 {
		k = 2 + rng.IntN(5)
	}
	ws := func() string { return []string{"", "", " ", "\n\t"}[rng.IntN(4)] }
	var b strings.Builder
	switch k {
	case 0, 1:
		b.WriteString("{" + ws())
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteString("," + ws())
			}
			b.WriteString(strs[rng.IntN(len(strs))] + ws() + ":" + ws() + randValue(rng, depth-1) + ws())
		}
		b.WriteString("}")
	case 2:
		b.WriteString("[" + ws())
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteString("," + ws())
			}
			b.WriteString(randValue(rng, max(depth-1, 0)) + ws())
		}
		b.WriteString("]")
	case 3:
		b.WriteString(strs[rng.IntN(len(strs))])
	case 4:
		b.WriteString([]string{"true", "false", "null"}[rng.IntN(3)])
	default:
		b.WriteString(nums[rng.IntN(len(nums))])
	}
	return b.String()
}

// FuzzValidJSON: validJSON is json.Valid.
func FuzzValidJSON(f *testing.F) {
	for _, s := range validCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v; json.Valid %v", b, got, want)
		}
	})
}

func BenchmarkValidJSON(b *testing.B) {
	p := []byte(`{"Account":"player-18","Level":20,"Pos":[661,713]}`)
	b.Run("valid", func(b *testing.B) {
		for b.Loop() {
			validJSON(p)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		for b.Loop() {
			json.Valid(p)
		}
	})
}
