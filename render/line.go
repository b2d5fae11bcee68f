package render

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/session"
)

// Text output. Every string that came from the wire goes through
// termsafe.Escape before it is printed, so a hostile listener type name can
// never move the cursor, retitle the window or clear the screen; JSON keeps
// the exact strings (outputs.md).

// maxDrawBytes is the widest field drawn as a bit string: a 32-bit value
// starting anywhere in a byte covers at most 5 bytes. Longer fields
// (strings, byte blocks) show their offset and length only.
const maxDrawBytes = 5

// BitString draws the bits of the span [bit, bit+n) of data in Wireshark's
// MSB-left style, adapted to NetPak's LSB-first stream (wire.md 1.1): the
// field's bytes are drawn in stream order, one group of eight columns per
// byte ("xxxx xxxx"), and stream bit 8·i+k — bit k of byte i — is drawn at
// column 7−k of byte i's group, so each group reads like the byte's binary
// value. Columns outside the field are dots. A 5-bit enum at bit 0 followed
// by Has_Client_ID at stream bit 5 therefore draws Has_Client_ID as
// "..1. ....". A field that crosses bytes draws one group per byte, the
// lower byte first. It returns "" for a field wider than maxDrawBytes bytes,
// for an empty field and for one outside data.
func BitString(data []byte, bit, n int) string {
	if n <= 0 || bit < 0 || bit+n > len(data)*8 {
		return ""
	}
	first, last := bit/8, (bit+n-1)/8
	if last-first+1 > maxDrawBytes {
		return ""
	}
	var b strings.Builder
	for i := first; i <= last; i++ {
		if i > first {
			b.WriteByte(' ')
		}
		for col := range 8 {
			if col == 4 {
				b.WriteByte(' ')
			}
			k := 7 - col
			s := 8*i + k
			switch {
			case s < bit || s >= bit+n:
				b.WriteByte('.')
			case data[i]>>k&1 == 1:
				b.WriteByte('1')
			default:
				b.WriteByte('0')
			}
		}
	}
	return b.String()
}

// ValueBits returns the bits of a field as its value's binary digits, most
// significant first (the order in which a reader of the number expects
// them), or "" for a field wider than 64 bits. The field's stream bits are
// LSB first, so bit j of the value is stream bit bit+j.
func ValueBits(data []byte, bit, n int) string {
	if n <= 0 || n > 64 || bit < 0 || bit+n > len(data)*8 {
		return ""
	}
	out := make([]byte, n)
	for j := range n {
		s := bit + j
		c := byte('0')
		if data[s/8]>>(s%8)&1 == 1 {
			c = '1'
		}
		out[n-1-j] = c
	}
	return string(out)
}

// FormatValue renders a span value for text output, wire strings escaped:
// dissect's rule in the text outputs' format ("(none)", decimal only).
func FormatValue(v any) string { return dissect.FormatValue(v, dissect.TextValues) }

// widenedMark follows the name of a message whose enum was read widened
// (docs/protocol.md "Widened enums"): the TUI's mark too, so that dump and
// the message list say it one way ("*" marks changed table entries).
const widenedMark = "⁺"

// MessageName is the message name with the widened mark.
func MessageName(m *session.Message) string {
	name := termsafe.Escape(m.Name())
	if m.Enum.Widened {
		name += widenedMark
	}
	return name
}

// summary is the one-line description of a message: the decoder's summary
// (without the message name, which the line shows already), or one built
// from the listener for USMN messages.
func Summary(m *session.Message) string {
	if m.Summary != "" {
		s := m.Summary
		if rest, ok := strings.CutPrefix(s, m.Name()); ok && (rest == "" || rest[0] == ' ') {
			s = rest
		}
		return termsafe.Escaped(strings.TrimSpace(s))
	}
	var parts []string
	if mode := m.ModeName(); mode != "" {
		parts = append(parts, termsafe.Escape(mode))
	}
	if l := m.Listener; l != nil {
		if l.ServerID != nil {
			parts = append(parts, fmt.Sprintf("srv#%d", *l.ServerID))
		}
		if l.ClientID != nil {
			parts = append(parts, fmt.Sprintf("cli#%d", *l.ClientID))
		}
		if l.Type != nil {
			parts = append(parts, termsafe.Escape(*l.Type))
		}
		if l.Version != nil {
			parts = append(parts, fmt.Sprintf("v%d", *l.Version))
		}
		if !l.Resolved {
			parts = append(parts, "unresolved")
		}
	}
	if m.Invokes() {
		parts = append(parts, dissect.Count(m.PayloadBits, "payload bit"))
	}
	if len(parts) == 0 {
		return dissect.Count(len(m.Data), "byte")
	}
	return strings.Join(parts, " ")
}

// RelTime formats t as seconds since the capture's first message.
func RelTime(t, start time.Time) string {
	if t.IsZero() || start.IsZero() {
		return "-"
	}
	return fmt.Sprintf("%.6f", t.Sub(start).Seconds())
}

// Format holds what the one-line format needs besides the message.
type Format struct {
	Start time.Time // time of message 1
}

// Line is the default `dump` line of a message: number, time, connection,
// direction, name with the widened mark, summary, and the worst finding.
func (f Format) Line(m *session.Message) string {
	return string(f.AppendLine(nil, m, m.Conn.String()))
}

// AppendLine appends Line's text to dst, conn being m.Conn.String() (a
// caller printing many lines makes it once per connection): the same
// bytes, built with appends rather than fmt (issue 28: plain dump within
// 1.5× dump --json).
func (f Format) AppendLine(dst []byte, m *session.Message, conn string) []byte {
	dst = appendLineHead(dst, m.N, m.Time, f.Start, conn, m.Dir)
	dst = append(dst, termsafe.Escape(m.Name())...)
	if m.Enum.Widened {
		dst = append(dst, widenedMark...)
	}
	if s := Summary(m); s != "" {
		dst = append(dst, ' ')
		dst = append(dst, s...)
	}
	// The answer of a pair shows its latency (outputs.md "Pairing"), as a
	// ULinkRPC Response's line does.
	if m.HasLatency {
		dst = append(dst, ' ')
		dst = append(dst, dissect.FormatLatency(m.Latency)...)
	}
	if w, ok := m.Worst(); ok {
		var first dissect.Finding
		for _, fd := range m.Findings {
			if fd.Severity == w {
				first = fd
				break
			}
		}
		dst = append(dst, " ["...)
		dst = append(dst, w.String()...)
		dst = append(dst, ": "...)
		dst = append(dst, termsafe.Escaped(first.Text)...)
		if more := len(m.Findings) - 1; more > 0 {
			dst = append(dst, " (+"...)
			dst = strconv.AppendInt(dst, int64(more), 10)
			dst = append(dst, " more)"...)
		}
		dst = append(dst, ']')
	}
	return dst
}

// padLeft appends what add appends, right-aligned in width bytes as fmt's
// %*s and %*d pad (the texts padded here are ASCII).
func padLeft(dst []byte, width int, add func([]byte) []byte) []byte {
	start := len(dst)
	dst = add(dst)
	if n := len(dst) - start; n < width {
		pad := width - n
		dst = append(dst, make([]byte, pad)...)
		copy(dst[start+pad:], dst[start:start+n])
		for i := start; i < start+pad; i++ {
			dst[i] = ' '
		}
	}
	return dst
}

// appendRelTime appends RelTime(t, start).
func appendRelTime(dst []byte, t, start time.Time) []byte {
	if t.IsZero() || start.IsZero() {
		return append(dst, '-')
	}
	return strconv.AppendFloat(dst, t.Sub(start).Seconds(), 'f', 6, 64)
}

// appendLineHead appends what every dump line starts with: "%5d %10s %s
// %s " of its number, its time since start, its connection's text and
// its direction.
func appendLineHead(dst []byte, n int, t, start time.Time, conn string, dir dissect.Dir) []byte {
	dst = padLeft(dst, 5, func(d []byte) []byte { return strconv.AppendInt(d, int64(n), 10) })
	dst = append(dst, ' ')
	dst = padLeft(dst, 10, func(d []byte) []byte { return appendRelTime(d, t, start) })
	dst = append(dst, ' ')
	dst = append(dst, conn...)
	dst = append(dst, ' ')
	dst = append(dst, dir.String()...)
	return append(dst, ' ')
}

// Tree is the -V field tree of a message: its line, its pair, its bytes as hex, every field with its
// bit offset and length and, for fields of at most maxDrawBytes bytes, the
// Wireshark-style bit string; then the findings.
func (f Format) Tree(m *session.Message) string {
	var b strings.Builder
	b.WriteString(f.Line(m))
	b.WriteByte('\n')
	fmt.Fprintf(&b, "    frame %d, %s, enum %d in %s", m.Frame, dissect.Count(len(m.Data), "byte"), m.Enum.Value, dissect.Count(m.Enum.Bits, "bit"))
	if m.Enum.Widened {
		b.WriteString(" (widened)")
	}
	b.WriteByte('\n')
	if m.Pair != 0 {
		fmt.Fprintf(&b, "    pair: message %d", m.Pair)
		if m.HasLatency {
			b.WriteString(", latency " + dissect.FormatLatency(m.Latency))
		}
		b.WriteByte('\n')
	}
	// The bytes as one hex string, as dump --json's "hex" key spells them:
	// what `usmnscope bits` takes back (issue 16).
	fmt.Fprintf(&b, "    hex: %x\n", m.Data)
	writeFields(&b, m.Data, m.Fields)
	if m.Invokes() {
		fmt.Fprintf(&b, "    payload: bit %d, %s\n", m.PayloadBit, dissect.Count(m.PayloadBits, "bit"))
	}
	for _, fd := range m.Findings {
		fmt.Fprintf(&b, "    %s %s: %s", fd.Severity, fd.Group, termsafe.Escaped(fd.Text))
		if fd.Bit >= 0 {
			fmt.Fprintf(&b, " (bit %d)", fd.Bit)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// bitColumn is the width of the widest bit string: maxDrawBytes groups.
const bitColumn = maxDrawBytes*10 - 1

func writeFields(b *strings.Builder, data []byte, fields []netpak.Span) {
	for _, s := range fields {
		fmt.Fprintf(b, "    %5d+%-4d %-*s = %s%s\n", s.Bit, s.Bits, bitColumn, BitString(data, s.Bit, s.Bits), termsafe.Escape(s.Name), FieldValue(s.Value))
	}
}

// FieldValue is ": value", or nothing for a field without a decoded value
// (a listener payload, whose bits only the listener understands).
func FieldValue(v any) string {
	if v == nil {
		return ""
	}
	return ": " + FormatValue(v)
}

// HexASCII is dump -x's block of a message's bytes, as tshark -x prints a
// packet: per 16 bytes the offset, the bytes in hex and the printable ASCII
// characters ('.' for any other byte, so nothing from the wire reaches the
// terminal but printable ASCII), then an empty line.
func HexASCII(data []byte) string {
	var b strings.Builder
	for off := 0; off < len(data); off += 16 {
		row := data[off:min(off+16, len(data))]
		fmt.Fprintf(&b, "%04x  ", off)
		for i := range 16 {
			if i < len(row) {
				fmt.Fprintf(&b, "%02x ", row[i])
			} else {
				b.WriteString("   ")
			}
		}
		b.WriteString("  ")
		for _, c := range row {
			if c < 0x20 || c > 0x7e {
				c = '.'
			}
			b.WriteByte(c)
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.String()
}
