package scenario_test

import (
	"bytes"
	"fmt"

	"github.com/usmnscope/usmnscope/scenario"
)

// A vanilla client and server: the handshake, a ping each way and a kick.
func ExampleScenario_Generate() {
	s, err := scenario.Parse("example", []byte(`
[[connection]]
client = "10.0.0.2:50412"
server = "10.0.0.1:27016"
[[connection.action]]
do = "handshake"
[[connection.action]]
do = "ping"
from = "client"
[[connection.action]]
do = "kick"
reason = "bye"
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	var capture bytes.Buffer
	st, err := s.Generate(&capture, scenario.PCAPNG)
	if err != nil {
		fmt.Println(err)
		return
	}
	// 3 handshake packets, 5 data packets, 2 pure ACKs, 3 for the close.
	fmt.Printf("%d messages in %d packets\n", st.Messages, st.Packets)
	// Output: 5 messages in 13 packets
}

// A load capture of 1000 messages over 4 connections.
func ExampleScale_Generate() {
	var capture bytes.Buffer
	st, err := scenario.Scale{Messages: 1000, Conns: 4, Seed: 1}.Generate(&capture, scenario.PCAP)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Conns, "connections,", st.Messages >= 1000, "messages")
	// Output: 4 connections, true messages
}
