package session_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
)

// Encode wire.md 3's Kicked("bye") as an outputs.md `dump --json` record,
// appended to a reused buffer.
func ExampleMessage_AppendJSON() {
	m := session.DecodeOne(nil, dissect.S2C, false, 0, []byte{0x8c, 0x00, 0x00, 0x62, 0x79, 0x65})
	m.N, m.Frame, m.Time = 1, 4, time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	m.Conn = dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.2:50412"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	buf := make([]byte, 0, 512)
	buf = m.AppendJSON(buf[:0])
	fmt.Println(string(buf))
	// Output:
	// {"n":1,"frame":4,"time":"2026-01-02T03:04:05.000000006Z","time_ns":1767323045000000006,"conn":"10.0.0.2:50412-10.0.0.1:27016","dir":"s2c","proto":"unturned","len":6,"hex":"8c0000627965","enum":{"value":12,"bits":5,"widened":false},"msg":"Kicked","summary":"Kicked \"bye\"","fields":[{"name":"enum","bit":0,"bits":5,"value":12},{"name":"reason","bit":5,"bits":43,"value":"bye"}],"expert":[]}
}

// Print the `dump --json` lines of a capture's messages. The connection's
// first S→C message is not the detection message, so its enum width is
// inferred (wire.md 4.2) and the record says so in "expert".
func ExampleIndex_AppendJSONRange() {
	c := session.NewIndex(nil)
	conn := dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.2:50412"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c.Open(conn, session.RuleUnknown, t0, 1)
	// One S→C frame: the 2-byte big-endian length (wire.md 2), then Kicked("bye").
	c.Data(conn, dissect.S2C, []byte{0, 6, 0x8c, 0x00, 0x00, 0x62, 0x79, 0x65}, t0, 2)
	c.Finish()
	fmt.Print(string(c.AppendJSONRange(nil, 1, c.Len(), nil))) // nil: every message; a display filter selects

	// Output:
	// {"n":1,"frame":2,"time":"2026-01-02T03:04:05.000000000Z","time_ns":1767323045000000000,"conn":"10.0.0.2:50412-10.0.0.1:27016","dir":"s2c","proto":"unturned","len":6,"hex":"8c0000627965","enum":{"value":12,"bits":5,"widened":false},"msg":"Kicked","summary":"Kicked \"bye\"","fields":[{"name":"enum","bit":0,"bits":5,"value":12},{"name":"reason","bit":5,"bits":43,"value":"bye"}],"expert":[{"severity":"note","group":"inference","text":"s2c enum width inferred vanilla (handshake not captured) from 1 messages: plausibility 1 widened, 2 vanilla; confidence 0.67"}]}
}
