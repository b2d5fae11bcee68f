package stats

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/filter"
	// The protocols the filter's proto==NAME knows are the registered
	// ones (decode.Protocols): the program's registration.
	_ "github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/stats/report"
)

var update = func() *bool {
	if f := flag.Lookup("update"); f != nil { // teatest's golden package registers it
		b := f.Value.(flag.Getter).Get().(bool)
		return &b
	}
	return flag.Bool("update", false, "rewrite the golden files")
}()

func updating() bool {
	if f := flag.Lookup("update"); f != nil {
		return f.Value.String() == "true"
	}
	return *update
}

// result is a small Result: three kinds over two directions, pings with
// round trips of 1..10 ms, a listener and a ULinkRPC method.
func result() *report.Result {
	return resultBy(report.ByKind, report.ByListener, report.ByMethod)
}

// resultBy is result's records grouped by by.
func resultBy(by ...report.By) *report.Result {
	rp := report.New(report.Options{By: by, Interval: time.Second})
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	conn := "10.0.0.2:50412-10.0.0.1:27016"
	n := 0
	add := func(r report.Record) {
		n++
		r.N, r.Time, r.Conn = n, t0.Add(time.Duration(n)*100*time.Millisecond), conn
		r.Bits[report.Framing] = 16
		r.Bits[report.Payload] = 8*int64(r.Bytes) - 16
		rp.Add(&r)
	}
	for i := 1; i <= 10; i++ {
		add(report.Record{Dir: dissect.C2S, Kind: "PingRequest", Bytes: 3})
		add(report.Record{Dir: dissect.S2C, Kind: "PingResponse", Bytes: 3, Ask: report.Ask{What: report.Ping, Dir: dissect.C2S}, Latency: time.Duration(i) * time.Millisecond})
	}
	for i := 0; i < 4; i++ {
		add(report.Record{Dir: dissect.S2C, Kind: "InvokeMessageListener", Listener: "Sample.ChatListener, Sample", Bytes: 40 + i})
	}
	add(report.Record{Dir: dissect.C2S, Kind: "InvokeMessageListener", Listener: "Sample.MapListener, Sample", Bytes: 12})
	svc, meth := "IPlayerService", "LoginAsync"
	add(report.Record{Dir: dissect.C2S, Proto: report.ULinkRPC, Kind: "Request", Method: "IPlayerService.LoginAsync", Bytes: 48, Request: true})
	add(report.Record{Dir: dissect.S2C, Proto: report.ULinkRPC, Kind: "Response", Method: "IPlayerService.LoginAsync", Bytes: 30, Answered: n,
		Ask: report.Ask{What: report.RPC}, Latency: 2 * time.Millisecond, ServiceID: 1, MethodID: 1, Service: &svc, MethodName: &meth})
	return rp.Result()
}

func press(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

func keys(m Model, ks ...string) (Model, tea.Cmd) {
	var cmd tea.Cmd
	for _, k := range ks {
		m, cmd = m.Update(press(k))
	}
	return m, cmd
}

func TestSort(t *testing.T) {
	m := New(result())
	if g, _ := m.Selected(); g.Key != "InvokeMessageListener" || g.Dir != dissect.S2C {
		t.Fatalf("first row by bytes = %s %s; want InvokeMessageListener s2c", g.Key, g.Dir)
	}
	// > twice: bytes → share → messages? No: bytes (3) → share (4) →
	// header (5). < back to messages (2).
	m, _ = keys(m, "<")
	if c, asc := m.Sort(); c != ColMessages || asc {
		t.Fatalf("< from bytes = %v asc %v; want MSGS descending", c, asc)
	}
	if g, _ := m.Selected(); g.Key != "PingRequest" && g.Key != "PingResponse" {
		t.Errorf("first row by messages = %s; want a ping kind (10 each)", g.Key)
	}
	m, _ = keys(m, "<", "<")
	if c, asc := m.Sort(); c != ColKey || !asc {
		t.Fatalf("sort = %v asc %v; want KEY ascending", c, asc)
	}
	if g, _ := m.Selected(); g.Key != "InvokeMessageListener" {
		t.Errorf("first row by key = %s; want InvokeMessageListener", g.Key)
	}
	m, _ = keys(m, "r")
	if g, _ := m.Selected(); g.Key != "Response" {
		t.Errorf("first row by key reversed = %s; want Response", g.Key)
	}
	m, _ = keys(m, "b")
	if by, _ := m.By(); by != report.ByListener {
		t.Errorf("b: grouping %v; want listener", by)
	}
}

// selectRow presses j until the row of key and dir is selected.
func selectRow(t *testing.T, m Model, key string, dir dissect.Dir) Model {
	t.Helper()
	for range 50 {
		if g, ok := m.Selected(); ok && g.Key == key && g.Dir == dir {
			return m
		}
		m, _ = keys(m, "j")
	}
	t.Fatalf("no row %q %s", key, dir)
	return m
}

// TestEnterFilters: Enter asks for the display filter of the selected
// group, and the filter language takes it.
func TestEnterFilters(t *testing.T) {
	tests := []struct {
		by   string // b presses
		key  string
		dir  dissect.Dir
		want string
	}{
		{"", "InvokeMessageListener", dissect.S2C, `msg=="InvokeMessageListener" && dir==s2c && proto==unturned`},
		{"", "Request", dissect.C2S, `msg=="Request" && dir==c2s && proto==ulinkrpc`},
		{"b", "Sample.ChatListener, Sample", dissect.S2C, `listener=="Sample.ChatListener, Sample" && dir==s2c && proto==unturned`},
		{"b", report.None, dissect.C2S, `!(msg==InvokeMessageListener || msg==NegotiateListenerDetails) && dir==c2s && proto==ulinkrpc`},
		{"bb", "IPlayerService.LoginAsync", dissect.C2S, `service=="IPlayerService" && method=="LoginAsync" && dir==c2s && proto==ulinkrpc`},
	}
	for _, tt := range tests {
		m := New(result())
		for range tt.by {
			m, _ = keys(m, "b")
		}
		m = selectRow(t, m, tt.key, tt.dir)
		_, cmd := m.Update(press("enter"))
		if cmd == nil {
			t.Fatalf("%q enter: no command", tt.key)
		}
		got := cmd().(FilterMsg).Expr
		if got != tt.want {
			t.Errorf("enter on %q %s = %q; want %q", tt.key, tt.dir, got, tt.want)
		}
	}
	// Every group's filter parses, in every grouping.
	for _, by := range []report.By{report.ByConn, report.ByDir, report.ByKind, report.ByListener, report.ByMessage, report.ByMethod} {
		res := resultBy(by)
		for i := range res.Groups {
			g := &res.Groups[i]
			if _, err := filter.Parse(FilterExpr(g)); err != nil {
				t.Errorf("filter.Parse(%q) = %v; want no error", FilterExpr(g), err)
			}
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./views/stats -update creates it)", err)
	}
	if string(want) != got {
		os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("%s differs from its golden file; see %s.got", name, path)
	}
}

func TestGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {160, 48}} {
		m := New(result())
		m.SetSize(sz.w, sz.h)
		m, _ = keys(m, "j")
		m, _ = keys(m, "j", "j") // the ping response: its histogram
		v := ansi.Strip(m.View())
		if n := strings.Count(v, "\n") + 1; n != sz.h {
			t.Errorf("%dx%d: %d lines", sz.w, sz.h, n)
		}
		for i, l := range strings.Split(v, "\n") {
			if w := ansi.StringWidth(l); w > sz.w {
				t.Errorf("%dx%d: line %d is %d cells wide", sz.w, sz.h, i, w)
			}
		}
		golden(t, fmt.Sprintf("stats-%dx%d", sz.w, sz.h), v)
	}
}

// host is a tea.Model around the pane for teatest: it keeps the last
// FilterMsg, as the root model would apply it.
type host struct {
	m      Model
	filter string
}

func (h host) Init() tea.Cmd { return nil }
func (h host) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case FilterMsg:
		h.filter = msg.Expr
		return h, nil
	case tea.WindowSizeMsg:
		h.m.SetSize(msg.Width, msg.Height)
		return h, nil
	}
	var cmd tea.Cmd
	h.m, cmd = h.m.Update(msg)
	return h, cmd
}
func (h host) View() tea.View { return tea.NewView(h.m.View()) }

// TestTeaSortAndFilter runs the pane in a program (teatest): sorting by
// key and Enter reach the host as a sorted pane and a filter.
func TestTeaSortAndFilter(t *testing.T) {
	tm := teatest.NewTestModel(t, host{m: New(result())}, teatest.WithInitialTermSize(100, 30))
	for _, k := range []string{"<", "<", "<", "enter"} {
		tm.Send(press(k))
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(ansi.Strip(string(b)), "sorted by KEY") },
		teatest.WithDuration(3*time.Second))
	time.Sleep(50 * time.Millisecond)
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, tm.FinalOutput(t, teatest.WithFinalTimeout(5*time.Second)))
	h := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(host)
	if c, asc := h.m.Sort(); c != ColKey || !asc {
		t.Errorf("sort after < < < = %v asc %v; want KEY ascending", c, asc)
	}
	if want := `msg=="InvokeMessageListener" && dir==c2s && proto==unturned`; h.filter != want {
		t.Errorf("enter on the first row by key: filter %q; want %q", h.filter, want)
	}
}
