package bits

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/session"
)

// FuzzView renders arbitrary bytes with arbitrary (even nonsensical) spans
// at arbitrary sizes and moves the cursor: it must never panic, must keep
// its size and must never print a control character from the data.
func FuzzView(f *testing.F) {
	f.Add([]byte{0x60, 0x01, 0x0d, 0x00}, []byte{0, 6, 6, 1, 7, 5}, uint8(40), uint8(10))
	f.Add([]byte{0x1b, '[', '2', 'J', 0x07, 0x9b}, []byte{200, 255, 0, 0}, uint8(13), uint8(2))
	f.Add([]byte{}, []byte{1, 1}, uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, data, spans []byte, w, h uint8) {
		var fields []netpak.Span
		for i := 0; i+1 < len(spans); i += 2 {
			fields = append(fields, netpak.Span{Name: "f\x1b", Bit: int(int8(spans[i])), Bits: int(spans[i+1])})
		}
		m := New()
		m.SetSize(int(w), int(h))
		m.SetMessage(&session.Message{Data: data, Fields: fields})
		for i := range fields {
			m.SelectField(i)
		}
		for _, k := range []string{"l", "w", "b", "j", "G", "m", "k", "g"} {
			m, _ = m.Update(press(k))
		}
		v := ansi.Strip(m.View())
		if h > 0 && strings.Count(v, "\n") != int(h)-1 {
			t.Fatalf("%d lines; want %d", strings.Count(v, "\n")+1, h)
		}
		if strings.ContainsAny(v, "\x1b\x07\r\x9b") {
			t.Fatalf("control character in view %q", v)
		}
	})
}
