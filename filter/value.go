package filter

import (
	"fmt"
	"strings"

	"github.com/usmnscope/usmnscope/session"
)

// Numbers compiles a numeric field name into a reader of its values in a
// message, through the same typed field table a comparison such as
// `latency > 1ms` or `payload.speed > 3` uses (issue 26: the I/O graph's
// Y values): a number or duration field of the table (durations in
// nanoseconds), or a payload field whose values are numbers (a value
// that is not one is left out). A message without the field gives none.
func Numbers(name string) (func(*session.Message) []float64, error) {
	name = strings.TrimSpace(name)
	if isPayloadField(name) {
		if l := strings.ToLower(name); l == "payload_message" || l == "payload_method" {
			return nil, fmt.Errorf("field %q is text, not a number", name)
		}
		return func(m *session.Message) []float64 {
			var out []float64
			for _, v := range payloadValues(m, name) {
				if x, ok := valueNumber(v); ok {
					out = append(out, x)
				}
			}
			return out
		}, nil
	}
	def, ok := filterFields[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("unknown field %q (fields: %s)", name, filterFieldList)
	}
	if def.kind != fieldNumber && def.kind != fieldDuration {
		return nil, fmt.Errorf("field %q is a %s field, not a number", name, def.kind)
	}
	hn, mn := def.headNum, def.num
	return func(m *session.Message) []float64 {
		var vs []int64
		if hn != nil {
			h := m.Head()
			vs = hn(&h)
		} else {
			vs = mn(m)
		}
		out := make([]float64, len(vs))
		for i, v := range vs {
			out[i] = float64(v)
		}
		return out
	}, nil
}
