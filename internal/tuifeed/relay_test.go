package tuifeed

import (
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestRelay: the feeder's messages, sent before the program runs (up to
// relayed of them) or while it does, reach it in order, all of them,
// those sent just before the feed ends too, and the feeder never waits
// for the program to start.
func TestRelay(t *testing.T) {
	for _, tt := range []struct {
		name    string
		n       int
		started bool // forward runs before the messages are sent
	}{
		{"none", 0, false},
		{"one before the program", 1, false},
		{"a full relay before the program", relayed, false},
		{"many while it runs", 5 * relayed, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := make(relay, relayed)
			done := make(chan struct{})
			var got []tea.Msg
			forwarded := make(chan struct{})
			forward := func() {
				r.forward(func(msg tea.Msg) { got = append(got, msg) }, done)
				close(forwarded)
			}
			if tt.started {
				go forward()
			}
			sent := make(chan struct{})
			go func() {
				for i := range tt.n {
					r.send(i)
				}
				close(sent)
			}()
			select {
			case <-sent:
			case <-time.After(10 * time.Second):
				t.Fatalf("relay.send of %d messages, forward running %v: the feeder still waits; want it never to wait for the program", tt.n, tt.started)
			}
			close(done)
			if !tt.started {
				go forward()
			}
			<-forwarded
			var want []tea.Msg
			for i := range tt.n {
				want = append(want, i)
			}
			if !slices.Equal(got, want) {
				t.Errorf("relay.forward after %d sends = %v; want %v", tt.n, got, want)
			}
		})
	}
}
