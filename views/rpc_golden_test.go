package views_test

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views"
)

// TestGoldenULinkRPC runs the program under teatest over ULinkRPC fixture
// captures (their records as the index hosts them, views.RPCFixture) at
// 80×24 and 160×48 and compares the final screen, colour stripped: the
// message list with rpc.Line's rows, the layer tree, the bits pane
// highlighting an envelope field and a payload member, the per-method
// tables, and a transform layer.
func TestGoldenULinkRPC(t *testing.T) {
	for _, sc := range []struct {
		name, fixture string
		keys          []string
	}{
		{"rpc-start", "tcp-json", nil},
		// Message 14: the hostile JSON payload; the cursor on its Account.
		{"rpc-detail", "tcp-json", []string{":", "1", "4", "enter", "tab", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j"}},
		// Message 1 in the bits pane, the cursor moved to method_id.
		{"rpc-bits", "tcp-json", []string{"tab", "tab", "w", "w", "w"}},
		// The tables as of the pending request, message 24.
		{"rpc-tables", "tcp-json", []string{":", "2", "4", "enter", "t"}},
		// Enter on the Response of request 6 goes to its Request.
		{"rpc-pair", "tcp-json", []string{":", "1", "3", "enter", "enter"}},
		// The transform layer of a decrypted frame.
		{"rpc-encrypted", "websocket-encrypted", []string{"j", "j", "tab", "j", "j"}},
	} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			name := sc.name + "-" + map[int]string{80: "80x24", 160: "160x48"}[sz[0]]
			t.Run(name, func(t *testing.T) {
				src := views.RPCFixture(t, sc.fixture)
				m := views.New(src, views.Config{Name: sc.fixture + ".pcapng", Parse: func(string) (func(*session.Message) bool, int, error) { return nil, 0, nil }})
				tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(sz[0], sz[1]))
				tm.Send(views.ProgressMsg{Fraction: 1, Done: true})
				for _, k := range sc.keys {
					tm.Send(keyPress(k))
				}
				if err := tm.Quit(); err != nil {
					t.Fatal(err)
				}
				fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(views.Model)
				raw := fm.View().Content
				for _, bad := range []string{"\x07", "\x1b]", "\u202e", "\x1b[2J", "\u009b"} {
					if strings.Contains(raw, bad) {
						t.Errorf("screen holds raw %q", bad)
					}
				}
				golden(t, name, ansi.Strip(raw))
			})
		}
	}
}
