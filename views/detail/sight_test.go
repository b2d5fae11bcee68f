package detail

import (
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
)

// TestSight: a message of a connection both ends captured shows where each
// capture saw it and its one-way delay; one a capture lacks says so; a
// message of one capture shows no such group.
func TestSight(t *testing.T) {
	m := New()
	m.SetSize(80, 30)
	msg := fake.InvokeDefinition(2, 0, fake.ChatType)
	m.SetMessage(msg)
	if got := strings.Join(m.Lines(), "\n"); strings.Contains(got, "Seen in") {
		t.Errorf("one capture: tree has a Seen group:\n%s", got)
	}
	msg.Sight = &session.Sight{Seen: []session.Seen{
		{Capture: "server.pcapng", Host: "srv", Frame: 7, TimeNS: 1767268800001000000},
		{Capture: "client.pcapng", Host: "cli\x1b[31m", Frame: 9, TimeNS: 1767268800004250000},
	}, OneWayNS: 3250000, HasOneWay: true}
	m.SetMessage(msg)
	got := strings.Join(m.Lines(), "\n")
	for _, want := range []string{
		"▾ Seen in 2, one way 3.25ms",
		"    srv (server.pcapng) frame 7 at 12:00:00.001000000",
		`    cli\x1b[31m (client.pcapng) frame 9 at 12:00:00.004250000`,
		"    one-way delay: 3.25ms",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("tree lacks %q; tree:\n%s", want, got)
		}
	}
	msg.Sight = &session.Sight{Seen: []session.Seen{{Capture: "server.pcapng", Host: "srv", Frame: 7, TimeNS: 1767268800001000000}}, MissingIn: []string{"client.pcapng"}}
	m.SetMessage(msg)
	got = strings.Join(m.Lines(), "\n")
	for _, want := range []string{"▾ Seen in 1, missing in client.pcapng", "    missing in client.pcapng"} {
		if !strings.Contains(got, want) {
			t.Errorf("tree lacks %q; tree:\n%s", want, got)
		}
	}
}
