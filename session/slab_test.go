package session

import (
	"reflect"
	"testing"
)

// hasPointers reports whether a value of t holds a pointer the collector
// would have to scan.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan,
		reflect.Func, reflect.Interface, reflect.Slice, reflect.String:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// TestSlabValuesHoldNoPointers guards the slab: its bytes come from
// hugepage.Bytes, which the collector does not scan, so a record or a
// list entry that held a pointer would leave what it points to unseen
// and freed under it.
func TestSlabValuesHoldNoPointers(t *testing.T) {
	for _, v := range []any{record{}, int32(0)} {
		if typ := reflect.TypeOf(v); hasPointers(typ) {
			t.Errorf("hasPointers(%v) = true; want false: a slab's values must hold no pointers", typ)
		}
	}
	type withPtr struct {
		a int
		p *int
	}
	if !hasPointers(reflect.TypeOf(withPtr{})) {
		t.Errorf("hasPointers(withPtr) = false; want true")
	}
}
