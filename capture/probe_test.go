package capture

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

// TestProbeDatagrams: with ProbeDatagrams, the first datagrams of every
// UDP flow on no listed port are yielded with Probe set, oriented as the
// first one went; a claimed flow then has every datagram, in both
// directions, without Probe; the others no more than the probe; flows past
// MaxProbeFlows are only counted, in one note. Without the option none is
// yielded.
func TestProbeDatagrams(t *testing.T) {
	eth := layers.LinkTypeEthernet
	a, b := mustAP("10.0.0.2:40000"), mustAP("10.0.0.1:31000")
	c, d := mustAP("10.0.0.3:40001"), mustAP("10.0.0.1:31001")
	var pkts []Packet
	for i := range 5 {
		pkts = append(pkts,
			Packet{Data: udpFrame(t, a, b, []byte(fmt.Sprintf("ab%d", i))), Link: eth, Time: t0},
			Packet{Data: udpFrame(t, b, a, []byte(fmt.Sprintf("ba%d", i))), Link: eth, Time: t0},
			Packet{Data: udpFrame(t, c, d, []byte(fmt.Sprintf("cd%d", i))), Link: eth, Time: t0})
	}
	for i := range 3 { // flows past the bound of 2
		pkts = append(pkts, Packet{Data: udpFrame(t, mustAP(fmt.Sprintf("10.0.0.9:%d", 50000+i)), b, []byte("x")), Link: eth, Time: t0})
	}
	run := func(opt Options, claim bool) (got []string, notes []string) {
		src := NewPackets(pkts, opt)
		for {
			ev, err := src.Next()
			if errors.Is(err, io.EOF) {
				return got, notes
			}
			if err != nil {
				t.Fatal(err)
			}
			switch ev.Kind {
			case EventDatagram:
				got = append(got, fmt.Sprintf("%s>%s %v %s probe=%v", ev.Flow.Client, ev.Flow.Server, ev.FromServer, ev.Data, ev.Probe))
				if claim && string(ev.Data) == "ab0" {
					src.(DatagramClaimer).ClaimDatagrams(ev.Flow)
				}
			case EventNote:
				notes = append(notes, ev.Text)
			}
		}
	}
	if got, _ := run(Options{}, false); len(got) != 0 {
		t.Errorf("no ProbeDatagrams: %q; want no datagram", got)
	}
	got, notes := run(Options{ProbeDatagrams: 2, MaxProbeFlows: 2}, true)
	want := []string{
		"10.0.0.2:40000>10.0.0.1:31000 false ab0 probe=true",
		"10.0.0.2:40000>10.0.0.1:31000 true ba0 probe=false",
		"10.0.0.3:40001>10.0.0.1:31001 false cd0 probe=true",
		"10.0.0.2:40000>10.0.0.1:31000 false ab1 probe=false",
		"10.0.0.2:40000>10.0.0.1:31000 true ba1 probe=false",
		"10.0.0.3:40001>10.0.0.1:31001 false cd1 probe=true",
		"10.0.0.2:40000>10.0.0.1:31000 false ab2 probe=false",
		"10.0.0.2:40000>10.0.0.1:31000 true ba2 probe=false",
		"10.0.0.2:40000>10.0.0.1:31000 false ab3 probe=false",
		"10.0.0.2:40000>10.0.0.1:31000 true ba3 probe=false",
		"10.0.0.2:40000>10.0.0.1:31000 false ab4 probe=false",
		"10.0.0.2:40000>10.0.0.1:31000 true ba4 probe=false",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("datagrams:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(strings.Join(notes, "\n"), "more than 2 flows; 3 datagrams of the later ones not looked at") {
		t.Errorf("notes %q; want the probe bound's note", notes)
	}
}
