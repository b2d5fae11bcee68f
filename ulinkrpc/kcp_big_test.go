package ulinkrpc

import (
	"strings"
	"testing"
)

// TestKCPManyFragmentsWarnOnce: a message of 139 fragments (frg 138 down
// to 0; the sender drops those past 128) is one warning, not one per
// segment with frg >= 128, in order or not, retransmitted or not; a second
// such message is warned of again (issue 29 point 5).
func TestKCPManyFragmentsWarnOnce(t *testing.T) {
	for _, order := range []string{"in order", "reversed"} {
		r := NewReassembler(KCPLimits{})
		r.Start(9)
		var msgs []KCPMessage
		yield := func(m KCPMessage) { msgs = append(msgs, m) }
		for msg := range 2 {
			base := uint32(msg * 139)
			sns := make([]uint32, 139)
			for i := range sns {
				sns[i] = uint32(i)
				if order == "reversed" && msg == 1 {
					sns[i] = uint32(138 - i)
				}
			}
			for _, i := range sns {
				seg := Segment{Conv: 9, Cmd: CmdPush, Frg: uint8(138 - i), Sn: base + i, Data: []byte{byte(i)}}
				r.Datagram(EncodeSegment(nil, seg), yield)
				if i%50 == 0 {
					r.Datagram(EncodeSegment(nil, seg), yield) // a retransmission
				}
			}
		}
		n := 0
		for _, f := range r.Findings() {
			if strings.Contains(f.Text, "a message of more than 128 fragments") {
				n++
			}
		}
		if n != 2 || len(msgs) != 2 || msgs[0].Fragments != 139 {
			t.Errorf("%s: %d warnings, %d messages; want 2 warnings (one a message), 2 messages of 139 fragments", order, n, len(msgs))
		}
	}
}
