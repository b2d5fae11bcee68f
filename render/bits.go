package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/session"
)

// fieldKeys are the letters that tie a field to its bits in the hexdump.
const fieldKeys = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func fieldKey(i int) byte { return fieldKeys[i%len(fieldKeys)] }

// maxValueBits is the widest field whose bits are listed as a binary number.
const maxValueBits = 32

// Bits prints the field list and the bit-level hexdump of one message.
func Bits(out io.Writer, m *session.Message, idBits int) {
	widened := "vanilla"
	if m.Enum.Widened {
		widened = "widened"
	}
	fmt.Fprintf(out, "%s, %s, %s enum of %s, %d-bit server IDs\n", m.Dir, dissect.Count(len(m.Data), "byte"), widened, dissect.Count(m.Enum.Bits, "bit"), idBits)
	fmt.Fprintf(out, "%s", MessageName(m))
	if s := Summary(m); s != "" {
		fmt.Fprintf(out, ": %s", s)
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "\nkey    bit   len  %-*s  field = value\n", maxValueBits, "bits (msb first)")
	for i, f := range m.Fields {
		vb := ValueBits(m.Data, f.Bit, f.Bits)
		if f.Bits > maxValueBits {
			vb = "…"
		}
		fmt.Fprintf(out, "  %c  %5d %5d  %-*s  %s%s\n", fieldKey(i), f.Bit, f.Bits, maxValueBits, vb, termsafe.Escape(f.Name), strings.Replace(FieldValue(f.Value), ": ", " = ", 1))
	}
	for _, fd := range m.Findings {
		fmt.Fprintf(out, "%s %s: %s", fd.Severity, fd.Group, termsafe.Escaped(fd.Text))
		if fd.Bit >= 0 {
			fmt.Fprintf(out, " (bit %d)", fd.Bit)
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out, "\nbyte  hex  bits 7..0  fields")
	Hexdump(out, m.Data, m.Fields)
}

// Hexdump prints one line per byte: its offset, hex, its bits drawn
// MSB-left (bit k at column 7−k, as in BitString) and under the same
// columns the key letter of the field each bit belongs to ('.' for bits no
// field covers; where fields nest, the later one). A run of lines equal
// but for the offset is shown once and then "*", as hexdump(1) does.
func Hexdump(out io.Writer, data []byte, fields []netpak.Span) {
	keys := make([]byte, len(data)*8)
	for b, o := range dissect.Owners(fields, len(keys)) {
		keys[b] = '.'
		if o >= 0 {
			keys[b] = fieldKey(int(o))
		}
	}
	prev, starred := "", false
	for i, c := range data {
		var bits, ks [9]byte
		for col, j := 0, 0; col < 8; col++ {
			if col == 4 {
				bits[j], ks[j] = ' ', ' '
				j++
			}
			k := 7 - col
			bits[j] = '0' + c>>k&1
			ks[j] = keys[8*i+k]
			j++
		}
		body := fmt.Sprintf("%02x   %s  %s", c, bits[:], ks[:])
		if body == prev && i < len(data)-1 {
			if !starred {
				fmt.Fprintln(out, "*")
				starred = true
			}
			continue
		}
		prev, starred = body, false
		fmt.Fprintf(out, "%4d  %s\n", i, body)
	}
}
