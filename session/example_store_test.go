package session_test

import (
	"bytes"
	"fmt"
	"net/netip"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
)

// A capture read from a file records whole messages by their file offset and
// reads them back through the Store when they are shown; here the "file" is
// a byte slice whose payload run starts at offset 40.
func ExampleIndex_DataAt() {
	payload := []byte{0, 3, 0xA1, 0xB2, 0xC3, 0, 2, 0x0D, 0x0E}
	file := append(make([]byte, 40), payload...)
	c := session.NewIndex(nil)
	c.SetStore(bytes.NewReader(file))
	conn := dissect.Conn{
		Client: netip.MustParseAddrPort("10.0.0.2:50000"),
		Server: netip.MustParseAddrPort("10.0.0.1:27016"),
	}
	c.DataAt(conn, dissect.C2S, payload, time.Unix(0, 0), 1, 40)
	c.Finish()
	inFile, inMemory := c.Placement()
	fmt.Println("in the file:", inFile, "in memory:", inMemory)
	fmt.Printf("message 1: % x\n", c.Message(1).Data)
	fmt.Printf("message 2: % x\n", c.Message(2).Data)
	// Output:
	// in the file: 2 in memory: 0
	// message 1: a1 b2 c3
	// message 2: 0d 0e
}
