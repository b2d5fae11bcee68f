package filter

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/session"
)

func TestNumbers(t *testing.T) {
	m := &session.Message{N: 7, Data: make([]byte, 5), HasLatency: true, Latency: 3 * time.Millisecond,
		Payload: []netpak.Span{{Name: "payload.speed", Value: float32(2.5)}, {Name: "payload.name", Value: "x"},
			{Name: "payload.items[0].n", Value: uint64(4)}, {Name: "payload.items[1].n", Value: int64(-1)}}}
	for _, tt := range []struct {
		name string
		want []float64
	}{
		{"n", []float64{7}},
		{"LEN", []float64{5}},
		{"latency", []float64{3e6}},
		{"payload.speed", []float64{2.5}},
		{"payload.name", nil},
		{"payload.items[].n", []float64{4, -1}},
		{"payload.nosuch", nil},
	} {
		f, err := Numbers(tt.name)
		if err != nil {
			t.Errorf("Numbers(%q): %v", tt.name, err)
			continue
		}
		if got := f(m); !reflect.DeepEqual(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("Numbers(%q)(m) = %v; want %v", tt.name, got, tt.want)
		}
	}
	for _, tt := range []struct{ name, want string }{
		{"nosuch", "unknown field"}, {"msg", "not a number"}, {"payload_method", "text"},
	} {
		if _, err := Numbers(tt.name); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Numbers(%q) = %v; want an error with %q", tt.name, err, tt.want)
		}
	}
}

// TestFieldOf: the detail pane's span names map to the filter fields a
// column shows.
func TestFieldOf(t *testing.T) {
	for _, tt := range []struct{ span, want string }{
		{"enum", "msg"},
		{"type", "msg"},
		{"Listener_ID", "server_id"},
		{"Serverside_Listener_ID", "server_id"},
		{"Clientside_Listener_ID", "client_id"},
		{"Listener_Type_Name", "listener"},
		{"latency", "latency"},
		{"payload.Level", "payload.Level"},
		{"len", "len"},
		{"padding", ""},
	} {
		if got := FieldOf(tt.span); got != tt.want {
			t.Errorf("FieldOf(%q) = %q; want %q", tt.span, got, tt.want)
		}
	}
}
