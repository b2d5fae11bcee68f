package session

import "testing"

// TestMsgList appends runs and breaks across blocks and reads every index
// back.
func TestMsgList(t *testing.T) {
	var l msgList
	var want []int32
	next := int32(0)
	for k := 0; k < 3*msgBlock+17; k++ {
		next++
		if k%1000 == 999 || (k > msgBlock && k < msgBlock+10) {
			next += 3 // another connection's messages in between
		}
		l.append(next)
		want = append(want, next)
	}
	if l.len() != len(want) {
		t.Fatalf("len = %d; want %d", l.len(), len(want))
	}
	for p, w := range want {
		if got := l.at(p); got != w {
			t.Fatalf("at(%d) = %d; want %d", p, got, w)
		}
	}
	// A block that stays one run holds no slice.
	var r msgList
	for i := int32(5); i < 5+msgBlock; i++ {
		r.append(i)
	}
	if r.blocks[0].ids != nil {
		t.Errorf("a consecutive block holds %d ids; want none", len(r.blocks[0].ids))
	}
}
