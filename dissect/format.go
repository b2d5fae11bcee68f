package dissect

import (
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// ValueFormat says how FormatValue writes the two kinds of value that the
// TUI's field tree and the text outputs (`dump -V`, `bits`) have always
// written differently; everything else they write alike. Each output keeps
// its own text, so both are here as parameters rather than one made to
// match the other.
type ValueFormat struct {
	Nil string // a field without a decoded value (a listener payload)
	Hex bool   // an unsigned integer also in hex: "5 (0x5)"
}

var (
	// TreeValues is the TUI detail pane's format: "-" for no value, and
	// unsigned integers with their hex.
	TreeValues = ValueFormat{Nil: "-", Hex: true}
	// TextValues is the text outputs' format: "(none)", decimal only.
	TextValues = ValueFormat{Nil: "(none)"}
)

// maxValueBytes is how many bytes of a []byte value are shown in hex
// before the rest is counted.
const maxValueBytes = 32

// FormatValue renders a field value (Field.Value) for a terminal: wire
// strings are quoted and escaped by termsafe.Escape, so a hostile listener
// type name cannot reach the terminal raw; byte blocks are hex, cut after
// 32 bytes with their length.
func FormatValue(v any, f ValueFormat) string {
	switch x := v.(type) {
	case nil:
		return f.Nil
	case bool:
		return strconv.FormatBool(x)
	case string:
		return `"` + termsafe.Escape(x) + `"`
	case []byte:
		if len(x) > maxValueBytes {
			return fmt.Sprintf("%s… (%d bytes)", hex.EncodeToString(x[:maxValueBytes]), len(x))
		}
		return hex.EncodeToString(x)
	case uint64:
		if f.Hex {
			return fmt.Sprintf("%d (0x%x)", x, x)
		}
		return strconv.FormatUint(x, 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case fmt.Stringer:
		return termsafe.Escape(x.String())
	default:
		return termsafe.Escape(fmt.Sprint(x))
	}
}

// Owners maps each of n stream bits to the index of the field that covers
// it, -1 where none does; where fields nest, the later (inner) one wins.
// The TUI's bits pane and `usmnscope bits` draw their hexdumps from it.
func Owners(fields []Field, n int) []int32 {
	o := make([]int32, n)
	for i := range o {
		o[i] = -1
	}
	for i, f := range fields {
		for b := max(f.Bit, 0); b < f.End() && b < n; b++ {
			o[b] = int32(i)
		}
	}
	return o
}
