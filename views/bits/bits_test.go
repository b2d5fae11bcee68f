package bits

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
	"github.com/usmnscope/usmnscope/views/frame"
)

func press(k string) tea.KeyPressMsg { return tea.KeyPressMsg{Code: []rune(k)[0], Text: k} }

// marking styles make highlighting visible after colour is stripped:
// the selected field's bits become "S"/"s" (1/0) and the cursor "C"/"c".
func marking() Styles {
	up := func(one, zero string) func(string) string {
		return func(s string) string {
			return strings.NewReplacer("1", one, "0", zero).Replace(s)
		}
	}
	return Styles{
		ListStyles: frame.ListStyles{
			Title: lipgloss.NewStyle(), TitleFocused: lipgloss.NewStyle(),
			Selected: lipgloss.NewStyle().Transform(up("S", "s")),
		},
		Cursor: lipgloss.NewStyle().Transform(up("C", "c")),
	}
}

// The definition message of fake.InvokeDefinition: enum 32 in 6 bits,
// Has_Listener_Definition at bit 6, Serverside_ID_Bit_Count 7..11,
// Listener_ID 12..13, then the string from bit 14 (wire.md 4.3).
func defMsg() *session.Message { return fake.InvokeDefinition(2, 1, "AB") }

func TestCursorSelectsOwner(t *testing.T) {
	m := New()
	m.SetSize(40, 10)
	m.SetMessage(defMsg())
	names := func() string {
		if m.SelectedField() < 0 {
			return "-"
		}
		return defMsg().Fields[m.SelectedField()].Name
	}
	for _, tc := range []struct {
		bit  int
		want string
	}{
		{0, "enum"}, {5, "enum"}, {6, "Has_Listener_Definition"}, {7, "Serverside_ID_Bit_Count"},
		{11, "Serverside_ID_Bit_Count"}, {12, "Listener_ID"}, {13, "Listener_ID"}, {14, "Listener_Type_Name"},
	} {
		m.SetCursor(tc.bit)
		if got := names(); got != tc.want {
			t.Errorf("SetCursor(%d): field %q; want %q", tc.bit, got, tc.want)
		}
	}
	// Keys: l moves one bit, w to the next field start, b back.
	m.SetCursor(5)
	m, _ = m.Update(press("l"))
	if m.Cursor() != 6 || names() != "Has_Listener_Definition" {
		t.Errorf("l from 5: cursor %d field %s; want 6 Has_Listener_Definition", m.Cursor(), names())
	}
	m, _ = m.Update(press("w"))
	if m.Cursor() != 7 {
		t.Errorf("w from 6: cursor %d; want 7", m.Cursor())
	}
	m, _ = m.Update(press("w"))
	if m.Cursor() != 12 {
		t.Errorf("w from 7: cursor %d; want 12", m.Cursor())
	}
	m, _ = m.Update(press("b"))
	if m.Cursor() != 7 {
		t.Errorf("b from 12: cursor %d; want 7", m.Cursor())
	}
	m.SelectField(3)
	if m.Cursor() != 12 || m.SelectedField() != 3 {
		t.Errorf("SelectField(3): cursor %d field %d; want 12 3", m.Cursor(), m.SelectedField())
	}
}

// bitsColumn returns the bits column of the first data row.
func bitsColumn(m Model) string {
	row := strings.Split(ansi.Strip(m.View()), "\n")[1]
	return strings.Split(row, "│")[1]
}

func TestHighlightExactBits(t *testing.T) {
	m := New()
	m.Styles = marking()
	m.SetSize(40, 10) // two bytes per row
	m.SetMessage(defMsg())
	m.SetCursor(0)
	m.SelectField(2) // Serverside_ID_Bit_Count = 2: bits 7..11, cursor on 7
	// byte 0 = 0x60: LSB first 0000011|0 ; bit 7 (the count's LSB, 0) is the cursor.
	// byte 1: bits 8..11 are the rest of the count (2>>1 = 1 → 1,0,0,0),
	// bits 12..13 Listener_ID = 1 → 1,0; bit 14 the string's empty flag 0,
	// bit 15 the low bit of its length−1 = 1.
	got := bitsColumn(m)
	want := "0000011c Ssss1001 "
	if got != want {
		t.Errorf("bits with field 2 selected = %q; want %q", got, want)
	}
	m, _ = m.Update(press("m")) // MSB first: each byte reversed
	if got, want := bitsColumn(m), "c1100000 1001sssS "; got != want {
		t.Errorf("MSB-first bits = %q; want %q", got, want)
	}
}

func TestClick(t *testing.T) {
	m := New()
	m.SetSize(40, 10)
	m.SetMessage(defMsg())
	// Row 1 (y=1) starts "0000 60 01 │": bits of byte 0 from x=12.
	for _, tc := range []struct {
		x    int
		msb  bool
		want int
	}{{12, false, 0}, {18, false, 6}, {21, false, 8}, {12, true, 7}} {
		if tc.msb != m.MSBFirst() {
			m, _ = m.Update(press("m"))
		}
		m, _ = m.Update(tea.MouseClickMsg{X: tc.x, Y: 1, Button: tea.MouseLeft})
		if m.Cursor() != tc.want {
			t.Errorf("click x=%d msb=%v: cursor %d; want %d", tc.x, tc.msb, m.Cursor(), tc.want)
		}
	}
}

func TestEmptyAndShort(t *testing.T) {
	m := New()
	m.SetSize(30, 5)
	m.SetMessage(nil)
	m, _ = m.Update(press("l"))
	_ = m.View()
	// A field claiming bits past the data must not panic.
	m.SetMessage(&session.Message{Data: []byte{1}, Fields: []netpak.Span{{Name: "x", Bit: 4, Bits: 100}, {Name: "neg", Bit: -3, Bits: 2}}})
	m.SelectField(0)
	m.SetCursor(1000)
	if m.Cursor() != 7 {
		t.Errorf("SetCursor(1000) on 1 byte: %d; want 7", m.Cursor())
	}
	_ = m.View()
}

// TestBytesView: at the width the bits pane has in a 160-column window, the
// byte view shows 16 bytes a row (issue 16 defect 8: the bit view shows 5),
// with the selected field's bytes highlighted and the ASCII column.
func TestBytesView(t *testing.T) {
	m := New()
	m.SetSize(80, 10)
	data := []byte("0123456789abcdefghijklmnopqrstuvwxyzABCD")
	m.SetMessage(&session.Message{Data: data, Fields: []netpak.Span{{Name: "f", Bit: 8 * 17, Bits: 16}}})
	if got := m.perRow(); got >= 16 {
		t.Fatalf("bit view perRow() = %d at width 80; the test expects the narrow bit view first", got)
	}
	m, _ = m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
	if got := m.perRow(); got != 16 {
		t.Errorf("byte view perRow() at width 80 = %d; want 16", got)
	}
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	if !strings.Contains(lines[0], "Bytes (16 a row)") {
		t.Errorf("title %q; want the byte view's", lines[0])
	}
	if want := "0010 67 68 69 6a 6b 6c 6d 6e 6f 70 71 72 73 74 75 76 │ghijklmnopqrstuv"; !strings.Contains(lines[2], want) {
		t.Errorf("row 2 = %q; want %q", lines[2], want)
	}
	m, _ = m.Update(tea.KeyPressMsg{Code: 'l', Text: "l"})
	if m.Cursor() != 8 {
		t.Errorf("→ in the byte view moved the cursor to bit %d; want 8 (one byte)", m.Cursor())
	}
	for _, w := range []int{20, 40, 78, 120} {
		if k := bytesPerRow(w); 4*k+7 > w && k > 1 {
			t.Errorf("bytesPerRow(%d) = %d: the row takes %d cells", w, k, 4*k+7)
		}
	}
}

// TestBitsCap: a ULinkRPC envelope past MaxBytes is shown in part, and the
// title says so; its fields past the cut own no bit shown.
func TestBitsCap(t *testing.T) {
	env := make([]byte, MaxBytes+100)
	r := &rpc.Record{Envelope: env, Fields: []dissect.Field{{Name: "type", Bit: 0, Bits: 8}, {Name: "payload", Bit: 8, Bits: 8 * (len(env) - 1)}}}
	m := New()
	m.SetSize(80, 10)
	m.SetMessage(&session.Message{N: 1, Rec: r})
	if len(m.owner) != 8*MaxBytes {
		t.Errorf("owner map of %d bits; want %d", len(m.owner), 8*MaxBytes)
	}
	if v := m.View(); !strings.Contains(v, fmt.Sprintf("first %d of %d bytes", MaxBytes, len(env))) {
		t.Errorf("title does not say the bytes were cut:\n%s", v)
	}
	m.SetCursor(8*MaxBytes - 1)
	if m.SelectedField() != 1 {
		t.Errorf("last bit shown owned by field %d; want 1 (payload)", m.SelectedField())
	}
}
