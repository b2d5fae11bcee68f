// Package follow builds the follow-a-connection view (Wireshark's Follow
// TCP Stream): both directions of one connection in capture order, each
// message as a header line (number, time, arrow, name, size) and its bytes
// as a hexdump with ASCII. Client-to-server lines are plain and
// server-to-client lines coloured; the arrow carries the direction without
// colour.
package follow

import (
	"fmt"
	"strings"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/frame"
)

// Limit bounds the messages one follow view reads, so a huge connection
// opens quickly; the last line says when it was cut.
const Limit = 5000

// Lines renders msgs (one connection's, ascending) with times relative to
// t0; more says that messages past Limit were left out.
func Lines(msgs []*session.Message, t0 time.Time, more bool) []frame.Row {
	var out []frame.Row
	for _, m := range msgs {
		arrow, style := "→", frame.Plain
		if m.Dir == dissect.S2C {
			arrow, style = "←", frame.NoteRow
		}
		name := frame.Name(m)
		if m.Enum.Widened {
			name += "⁺"
		}
		data, _ := frame.Bytes(m) // a ULinkRPC record's envelope
		out = append(out, frame.Row{Text: fmt.Sprintf("%s #%d %.6f %s %s", arrow, m.N, m.Time.Sub(t0).Seconds(), name, dissect.Count(len(data), "byte")), Style: style, Msg: m.N})
		for _, h := range Hex(data) {
			out = append(out, frame.Row{Text: "  " + h, Style: style, Msg: m.N})
		}
	}
	if len(out) == 0 {
		out = append(out, frame.Row{Text: "  no messages on this connection"})
	}
	if more {
		out = append(out, frame.Row{Text: fmt.Sprintf("  … only the first %d messages are shown", Limit)})
	}
	return out
}

// Hex formats b as tshark -x does: offset, 16 bytes in hex, ASCII with a
// dot for anything not printable (so nothing from the wire reaches the
// terminal raw).
func Hex(b []byte) []string {
	var out []string
	for off := 0; off < len(b); off += 16 {
		row := b[off:min(off+16, len(b))]
		var h, a strings.Builder
		for i := 0; i < 16; i++ {
			if i == 8 {
				h.WriteByte(' ')
			}
			if i < len(row) {
				fmt.Fprintf(&h, "%02x ", row[i])
				c := row[i]
				if c < 0x20 || c > 0x7e {
					c = '.'
				}
				a.WriteByte(c)
			} else {
				h.WriteString("   ")
			}
		}
		out = append(out, fmt.Sprintf("%04x  %s %s", off, h.String(), a.String()))
	}
	return out
}
