package unturned

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

// tailFields are fields whose length follows the message length: a cut
// shortens them instead of failing.
var tailFields = map[string]bool{
	"payload": true, "undecoded": true, "parameters": true, "legacy_data": true,
	"trailer": true, "config": true, "padding": true,
}

// TestCuts decodes every shorter cut of every message form and checks that
// it never panics, that the fields that fit before the cut decode exactly as
// in the whole message, and that a cut inside the fixed part is an error
// finding at or before the cut.
func TestCuts(t *testing.T) {
	for _, p := range profiles() {
		for _, widened := range []bool{false, true} {
			for _, c := range cases(p, widened) {
				_, full := decodeAll(p, c.dir, c.st, c.data)
				fixed := 8 * len(c.data) // end of the fixed part: the first tail field, or the marker
				for _, s := range full {
					if tailFields[s.Name] || strings.HasPrefix(s.Name, "marker.") {
						fixed = s.Bit
						break
					}
				}
				for cut := 0; cut < len(c.data); cut++ {
					d, spans := decodeAll(p, c.dir, c.st, c.data[:cut])
					name := p.Game + "/" + c.name + "/cut " + itoa(cut)
					checkInvariants(t, name, d, spans, cut)
					for i, s := range spans {
						if !tailFields[s.Name] && s.End() <= 8*cut && (i >= len(full) || !reflect.DeepEqual(s, full[i])) {
							t.Errorf("%s: field %d = %+v; whole message has %+v", name, i, s, full[min(i, len(full)-1)])
						}
					}
					if 8*cut < fixed && d.Clean() {
						t.Errorf("%s: cut at bit %d inside the fixed part (ends %d) decodes clean: %s", name, 8*cut, fixed, spanNames(spans))
					}
				}
			}
		}
	}
}

// checkInvariants holds for any input: spans in order, inside the message,
// not overlapping; findings point inside the message; the summary is safe to
// print.
func checkInvariants(t *testing.T, name string, d *Decoded, spans []netpak.Span, n int) {
	t.Helper()
	at := 0
	for _, s := range spans {
		if s.Bit < at || s.Bits < 0 || s.End() > 8*n {
			t.Errorf("%s: field %s@%d+%d out of order or outside %d bits", name, s.Name, s.Bit, s.Bits, 8*n)
		}
		at = s.End()
	}
	for _, f := range d.Findings {
		if f.Bit < -1 || f.Bit > 8*n {
			t.Errorf("%s: finding at bit %d outside %d bits: %s", name, f.Bit, 8*n, f.Text)
		}
	}
	if d.PayloadBit < 0 || d.PayloadBits < 0 || d.PayloadBit+d.PayloadBits > 8*n {
		t.Errorf("%s: payload %d+%d outside %d bits", name, d.PayloadBit, d.PayloadBits, 8*n)
	}
	for _, r := range d.Summary() {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			t.Errorf("%s: summary %q has a control character", name, d.Summary())
			break
		}
	}
}

// TestBitFlips flips every bit of the short messages, and random bits of all
// of them, and checks the invariants.
func TestBitFlips(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, p := range profiles() {
		for _, widened := range []bool{false, true} {
			for _, c := range cases(p, widened) {
				n := len(c.data) * 8
				for k := 0; k < 200; k++ {
					b := append([]byte(nil), c.data...)
					if k < n && n <= 512 {
						b[k/8] ^= 1 << (k % 8)
					} else {
						for j := 0; j < 1+k%4; j++ {
							i := rng.Intn(n)
							b[i/8] ^= 1 << (i % 8)
						}
					}
					st := c.st
					st.IDBits = rng.Intn(33)
					d, spans := decodeAll(p, c.dir, st, b)
					checkInvariants(t, p.Game+"/"+c.name, d, spans, len(b))
				}
			}
		}
	}
}

// TestErrorTexts checks that errors say where: part, field and bit
// (style.md; outputs.md severities).
func TestErrorTexts(t *testing.T) {
	e := Encoder{P: Default()}
	st := State{Widened: true}
	def := e.InvokeC2S(true, Invoke{HasClientID: true, HasDefinition: true, ClientID: 1, Type: "Sample.Listener", Version: 1}, nil)
	badUTF8 := func() []byte {
		b := e.Kicked(false, "ab")
		b[len(b)-1] = 0xff
		return b
	}()
	badPad := func() []byte {
		b := e.Kicked(false, "ab")
		b[2] |= 0x80 // bit 23: the last padding bit before the string bytes
		return b
	}()
	badZeros := func() []byte {
		b := e.GetWorkshopFiles(false, nil)
		b[100] = 7
		return b
	}()
	tests := []struct {
		name string
		dir  dissect.Dir
		st   State
		data []byte
		want dissect.Finding
	}{
		// enum 5, Has_Client_ID 5, Has_Listener_Definition 6, Clientside_Listener_ID 7..38, empty flag 39, length from 40.
		{"type name cut", dissect.C2S, st, def[:6], dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: "usmn invoke header: Listener_Type_Name: need 11 bits at bit 40, have 8", Bit: 40}},
		{"client id cut", dissect.C2S, st, def[:3], dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: "usmn invoke header: Clientside_Listener_ID: need 32 bits at bit 7, have 17", Bit: 7}},
		{"empty", dissect.S2C, State{}, nil, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: "enum: need 5 bits at bit 0, have 0", Bit: 0}},
		{"widened enum cut", dissect.C2S, st, []byte{}, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: "enum: need 4 bits at bit 0, have 0", Bit: 0}},
		{"invalid UTF-8", dissect.S2C, State{}, badUTF8, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: "Kicked: reason: netpak: invalid UTF-8: 2-byte string at bit 24", Bit: 24}},
		{"non-zero padding", dissect.S2C, State{}, badPad, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: "Kicked: reason: netpak: non-zero alignment padding: 7 padding bits are 0x40 at bit 17", Bit: 17}},
		{"non-zero zeros", dissect.C2S, State{}, badZeros, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Text: "GetWorkshopFiles: zeros: byte 100 is 0x07; the vanilla client writes 960 zero bytes", Bit: 800}},
		// enum 6, mode 6..7, Clientside_Listener_ID 8..39, Serverside_Listener_ID (4 bits in force) from 40.
		{"negotiate cut", dissect.S2C, State{Widened: true, IDBits: 4, IDKnown: true}, e.Negotiate(dissect.S2C, true, Negotiate{Mode: TellClientListenerID, IDBits: 4})[:5],
			dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: "usmn negotiate: Serverside_Listener_ID: need 4 bits at bit 40, have 0", Bit: 40}},
	}
	for _, tt := range tests {
		d, _ := decodeAll(Default(), tt.dir, tt.st, tt.data)
		if len(d.Findings) == 0 {
			t.Errorf("%s: no findings; want %+v", tt.name, tt.want)
			continue
		}
		if got := d.Findings[0]; got != tt.want {
			t.Errorf("%s: finding = %+v; want %+v", tt.name, got, tt.want)
		}
	}
}
