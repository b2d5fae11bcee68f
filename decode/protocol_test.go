package decode

import "testing"

// TestRegister: a protocol registers once by name (a second of the same
// name replaces it), Lookup finds it, and the returned function takes it
// out again, leaving the others.
func TestRegister(t *testing.T) {
	before := len(Protocols())
	a := &Protocol{Name: "test-a", Ports: []uint16{1}}
	undoA := Register(a)
	b := &Protocol{Name: "test-a", Ports: []uint16{2}}
	undoB := Register(b)
	if got := Lookup("test-a"); got != b {
		t.Errorf("Lookup(test-a) = %v after a second Register; want the second", got)
	}
	if n := len(Protocols()); n != before+1 {
		t.Errorf("len(Protocols()) = %d; want %d (one per name)", n, before+1)
	}
	undoA() // the replaced one: no effect
	if Lookup("test-a") != b {
		t.Error("unregistering the replaced protocol removed its successor")
	}
	undoB()
	if Lookup("test-a") != nil || len(Protocols()) != before {
		t.Errorf("after unregister: Lookup = %v, %d protocols; want nil, %d", Lookup("test-a"), len(Protocols()), before)
	}
	if !b.Claims(2) || b.Claims(1) {
		t.Errorf("Claims(2), Claims(1) = %v, %v; want true, false", b.Claims(2), b.Claims(1))
	}
}

// TestNameMatch: a filter name may leave a list index out.
func TestNameMatch(t *testing.T) {
	for _, tt := range []struct {
		field, want string
		match       bool
	}{
		{"payload.x", "payload.x", true},
		{"payload.X", "PAYLOAD.x", true},
		{"payload.items[2].amount", "payload.items[].amount", true},
		{"payload.items[2].amount", "payload.items.amount", true},
		{"payload.items[2].amount", "payload.items[2].amount", true},
		{"payload.items[2].amount", "payload.items[1].amount", false},
		{"payload.x", "payload.y", false},
	} {
		if got := NameMatch(tt.field, tt.want); got != tt.match {
			t.Errorf("NameMatch(%q, %q) = %v; want %v", tt.field, tt.want, got, tt.match)
		}
	}
}
