// Package enum is the one String rule of usmnscope's typed enums (style.md
// "Enums are typed integers with a String() that never fails"): the name
// from the enum's table, or Unknown(v) for a value the table does not
// name. Every package's enums call it, so the spelling of an unknown value
// is the same in every output.
package enum

import "strconv"

// Name returns names[v], or "Unknown(v)" when v is past the table or the
// table has no name for it.
func Name[T ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~int](names []string, v T) string {
	if v >= 0 && uint64(v) < uint64(len(names)) && names[v] != "" {
		return names[v]
	}
	if v < 0 {
		return "Unknown(" + strconv.FormatInt(int64(v), 10) + ")"
	}
	return "Unknown(" + strconv.FormatUint(uint64(v), 10) + ")"
}
