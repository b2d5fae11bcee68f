package tuifeed

import tea "charm.land/bubbletea/v2"

// relay is the send of a feed (Run) that starts before the program it
// tells: its messages wait in order, up to relayed of them, until forward
// hands them to the program, so that the feeder waits neither for the UI
// to be built nor for the event loop to take each message (issue 28: in
// tmux the feed started 47–78 ms into the process, after the views and
// the program were made, and then waited 10–17 ms on its first message
// while the program started; relayed, it starts at 25 ms).
type relay chan tea.Msg

// relayed is how many messages wait before the feeder does: it sends
// some twenty a second at most (refreshInterval, and the live counters'
// one), and the event loop takes each as soon as it is free.
const relayed = 16

func (r relay) send(msg tea.Msg) { r <- msg }

// forward sends r's messages with send until done closes (Run: no message
// comes after), then those left.
func (r relay) forward(send func(tea.Msg), done <-chan struct{}) {
	for {
		select {
		case msg := <-r:
			send(msg)
		case <-done:
			for {
				select {
				case msg := <-r:
					send(msg)
				default:
					return
				}
			}
		}
	}
}
