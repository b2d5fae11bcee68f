package filter

import (
	"math"
	"strconv"
	"strings"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
)

// Payload fields (schema.md section 3, issue 14): `payload_message`,
// `payload_method` and every `payload.<field>` a schema decodes, by the
// names the JSON gives them (`payload.hello ~ "hi"`, `payload_message ==
// Connect`, `payload.items[0].amount > 1`). A list item's index may be
// left out (`payload.items[].amount` or `payload.items.amount`) to test
// every item. A message without that field does not match (and matches
// `!=`). Numbers compare as numbers with < <= > >=; == and != compare
// numbers as numbers when the value is one, else as text; ~ is a
// substring test on the text.

// isPayloadField reports whether name is one of the payload names.
func isPayloadField(name string) bool {
	n := strings.ToLower(name)
	return n == "payload_message" || n == "payload_method" || strings.HasPrefix(n, "payload.")
}

// payloadValues returns the values of the payload field name in m.
func payloadValues(m *session.Message, name string) []any {
	if m.Record() != nil {
		vs, _ := m.Record().Values(name)
		return vs
	}
	switch strings.ToLower(name) {
	case "payload_message":
		if m.PayloadMessage == "" {
			return nil
		}
		return []any{m.PayloadMessage}
	case "payload_method":
		if m.PayloadMethod == "" {
			return nil
		}
		return []any{m.PayloadMethod}
	}
	var out []any
	for _, f := range m.Payload {
		if payloadNameMatch(f.Name, name) {
			out = append(out, f.Value)
		}
	}
	return out
}

// payloadNameMatch compares a field name with a filter name, case
// insensitively, where the filter may leave a list index out: "[]" or
// nothing matches any "[i]".
func payloadNameMatch(field, want string) bool { return decode.NameMatch(field, want) }

// valueText is the text a payload value is compared as: strings as they
// are (unescaped: the filter compares what was on the wire), the rest as
// the text outputs show them.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return dissect.FormatValue(v, dissect.TextValues)
}

// valueNumber is v as a number, when it is one.
func valueNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case uint64:
		return float64(x), true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case uint32:
		return float64(x), true
	case int16:
		return float64(x), true
	case uint16:
		return float64(x), true
	case int8:
		return float64(x), true
	case uint8:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x)
	case float32:
		return float64(x), !math.IsNaN(float64(x))
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// payloadTest compiles FIELD OP VALUE over a payload field.
func (p *filterParser) payloadTest(f, op, v token) (filterNode, error) {
	p.needsMessage = true
	name := f.text
	want := v.text
	wantNum, numErr := strconv.ParseFloat(want, 64)
	if i, err := strconv.ParseInt(want, 0, 64); err == nil {
		wantNum, numErr = float64(i), nil
	}
	isNum := numErr == nil
	switch op.text {
	case "<", "<=", ">", ">=":
		if !isNum {
			return nil, p.errAt(v, "%q is not a number", v.text)
		}
		cmp := map[string]func(a, b float64) bool{
			"<": func(a, b float64) bool { return a < b }, "<=": func(a, b float64) bool { return a <= b },
			">": func(a, b float64) bool { return a > b }, ">=": func(a, b float64) bool { return a >= b },
		}[op.text]
		return testNode{func(s *subject) bool {
			for _, x := range payloadValues(s.m, name) {
				if n, ok := valueNumber(x); ok && cmp(n, wantNum) {
					return true
				}
			}
			return false
		}}, nil
	case "~":
		sub := strings.ToLower(want)
		return testNode{func(s *subject) bool {
			for _, x := range payloadValues(s.m, name) {
				if containsFold(valueText(x), sub) {
					return true
				}
			}
			return false
		}}, nil
	}
	eq := func(x any) bool {
		if n, ok := valueNumber(x); ok && isNum {
			return n == wantNum
		}
		if b, ok := x.(bool); ok {
			return strings.EqualFold(strconv.FormatBool(b), want)
		}
		return strings.EqualFold(valueText(x), want)
	}
	match := func(s *subject) bool {
		for _, x := range payloadValues(s.m, name) {
			if eq(x) {
				return true
			}
		}
		return false
	}
	if op.text == "!=" {
		return testNode{func(s *subject) bool { return !match(s) }}, nil
	}
	return testNode{match}, nil
}
