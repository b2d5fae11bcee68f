package filter

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/usmnscope/usmnscope/session"
)

// Value is one field of a message as a column of the TUI's message list
// shows and sorts it (issue 30): Text to show, and for a numeric field its
// number, so that sorting never compares numbers as strings.
type Value struct {
	Text    string
	Num     float64
	Numeric bool
	OK      bool // the message has the field
}

// IsField reports whether name is a field Lookup reads: a filter field or
// a payload name.
func IsField(name string) bool {
	if isPayloadField(name) {
		return true
	}
	_, ok := filterFields[strings.ToLower(name)]
	return ok
}

// FieldOf is the field a column shows for a field of the detail pane,
// named as its span is ("Listener_ID", "payload.Level", "latency"), or
// "" when no field reads it: the TUI's "apply as column" (issue 30).
func FieldOf(span string) string {
	switch span {
	case "enum", "type":
		return "msg"
	case "Listener_ID", "Serverside_Listener_ID":
		return "server_id"
	case "Clientside_Listener_ID":
		return "client_id"
	case "Listener_Type_Name":
		return "listener"
	}
	if IsField(span) {
		return span
	}
	if strings.HasPrefix(span, "payload.") || IsField(strings.ToLower(span)) {
		return strings.ToLower(span[:1]) + span[1:]
	}
	return ""
}

// Lookup returns the field name of m, typed by the field table the filter
// language uses (a number, a duration, an ordered choice sort as numbers;
// a payload member as its decoded type). Several values (group: one per
// finding) are shown joined by commas and sort by the first.
func Lookup(name string, m *session.Message) Value {
	if m == nil {
		return Value{}
	}
	if isPayloadField(name) {
		vs := payloadValues(m, name)
		if len(vs) == 0 {
			return Value{}
		}
		return anyValue(vs[0])
	}
	d, ok := filterFields[strings.ToLower(name)]
	if !ok {
		return Value{}
	}
	var (
		strs []string
		nums []int64
	)
	if d.headStr != nil || d.headNum != nil {
		h := m.Head()
		if d.headStr != nil {
			strs = d.headStr(&h)
		}
		if d.headNum != nil {
			nums = d.headNum(&h)
		}
	} else {
		if d.str != nil {
			strs = d.str(m)
		}
		if d.num != nil {
			nums = d.num(m)
		}
	}
	switch d.kind {
	case fieldNumber, fieldDuration, fieldOrdered:
		if len(nums) == 0 {
			return Value{}
		}
		v := Value{Num: float64(nums[0]), Numeric: true, OK: true}
		switch {
		case d.kind == fieldDuration:
			v.Text = time.Duration(nums[0]).String()
		case d.kind == fieldOrdered && nums[0] >= 0 && int(nums[0]) < len(d.choices):
			v.Text = d.choices[nums[0]]
		default:
			var parts []string
			for _, n := range nums {
				parts = append(parts, strconv.FormatInt(n, 10))
			}
			v.Text = strings.Join(parts, ",")
		}
		return v
	}
	if len(strs) == 0 {
		return Value{}
	}
	return Value{Text: strings.Join(strs, ","), OK: true}
}

// anyValue types a payload value: numbers as numbers.
func anyValue(v any) Value {
	switch v := v.(type) {
	case int64:
		return Value{Text: strconv.FormatInt(v, 10), Num: float64(v), Numeric: true, OK: true}
	case uint64:
		return Value{Text: strconv.FormatUint(v, 10), Num: float64(v), Numeric: true, OK: true}
	case float64:
		if math.IsNaN(v) {
			return Value{Text: "NaN", OK: true}
		}
		return Value{Text: strconv.FormatFloat(v, 'g', -1, 64), Num: v, Numeric: true, OK: true}
	case bool:
		return Value{Text: strconv.FormatBool(v), OK: true}
	case string:
		return Value{Text: v, OK: true}
	case nil:
		return Value{Text: "null", OK: true}
	}
	return Value{Text: "…", OK: true}
}
