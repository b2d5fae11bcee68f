package ulinkrpc

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// TestJSONWalkValues: each member's value is typed as ulinkrpc.md's
// fields have it: int64 for an integer that fits, else float64, strings
// unescaped, containers and null nil.
func TestJSONWalkValues(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`0`, int64(0)},
		{`-0`, int64(0)},
		{`123456789012345678`, int64(123456789012345678)},
		{`1234567890123456789`, int64(1234567890123456789)},
		{`9223372036854775807`, int64(9223372036854775807)},
		{`-9223372036854775808`, int64(-9223372036854775808)},
		{`9223372036854775808`, float64(9223372036854775808)},
		{`9999999999999999999`, float64(1e19)},
		{`-9999999999999999999`, float64(-1e19)},
		{`1.5`, 1.5},
		{`1e2`, float64(100)},
		{`"a\"b\u00e9"`, "a\"bé"},
		{`"plain"`, "plain"},
		{`true`, true},
		{`false`, false},
		{`null`, nil},
		{`[1]`, nil},
		{`{}`, nil},
	}
	for _, tt := range tests {
		var w JSONWalk
		w.Walk([]byte(tt.in), "payload")
		if len(w.Members) == 0 {
			t.Errorf("Walk(%s) found nothing", tt.in)
			continue
		}
		if got := w.Value(&w.Members[0]); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Walk(%s) value = %#v; want %#v", tt.in, got, tt.want)
		}
	}
}

// TestJSONWalkNames: names, spans and the reuse of a walk's buffers.
func TestJSONWalkNames(t *testing.T) {
	var w JSONWalk
	w.Walk([]byte(`{"a":[1,{"b\u0041":null}]}`), "p")
	w.Walk([]byte(` {"x" : [ 1 , { "y\u0041" : null } ] } `), "payload")
	want := "payload@1+37 payload.x@8+28 payload.x[0]@10+1 payload.x[1]@14+20 payload.x[1].yA@28+4"
	got := ""
	for i := range w.Members {
		m := &w.Members[i]
		if i > 0 {
			got += " "
		}
		got += string(w.Name(m)) + "@" + strconv.Itoa(int(m.From)) + "+" + strconv.Itoa(int(m.To-m.From))
	}
	if got != want {
		t.Errorf("Walk members = %s; want %s", got, want)
	}
}

// TestCheckMemoryPack: checkMemoryPack fails exactly as CutMemoryPack
// does, on valid objects, their every shorter cut and random bytes.
func TestCheckMemoryPack(t *testing.T) {
	ins := [][]byte{vecLogin, MPEncodeObject(true, MPInt32(0), MPString("t")), {0xff}, {0}, {0xfa}, {1, 0x7f}}
	for n := range len(vecLogin) {
		ins = append(ins, vecLogin[:n])
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(3) == 0 {
				b[i] = byte(rng.IntN(6))
			}
		}
		ins = append(ins, b)
	}
	for _, b := range ins {
		_, want := CutMemoryPack(b)
		got := checkMemoryPack(b)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("checkMemoryPack(%x) = %v; want %v", b, got, want)
		}
	}
}
