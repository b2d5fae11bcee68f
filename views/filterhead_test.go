package views

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
	"github.com/usmnscope/usmnscope/views/filterbar"
)

// headSource is a fake capture that also gives Heads as a filter reads
// them (messages.HeadSource), counting those.
type headSource struct {
	*fake.Source
	heads int
}

func (s *headSource) FilterHead(n int) (session.Head, bool) {
	s.heads++
	m := s.Source.Message(n)
	if m == nil {
		return session.Head{}, false
	}
	return m.Head(), true
}

// testHead is testParse's test of Heads, for "msg == NAME" only (as if
// the others read what a Head does not hold).
func testHead(expr string) func(session.Head) bool {
	f := strings.Fields(expr)
	if len(f) == 3 && f[0] == "msg" && f[1] == "==" {
		return func(h session.Head) bool { return h.Kind.String() == f[2] }
	}
	return nil
}

// TestFilterReadsHeads: a display filter that Config.Head can test on
// Heads lists, from Heads alone, what its test of messages lists; one it
// cannot (nil) is tested on messages; with the marked-only list too.
func TestFilterReadsHeads(t *testing.T) {
	const n = 300
	for _, tc := range []struct {
		expr      string
		marked    bool
		wantHeads bool
	}{
		{"msg == PingRequest", false, true},
		{"msg == PingRequest", true, true},
		{"dir == c2s", false, false},
	} {
		listed := func(head HeadFunc) ([]int, int) {
			src := &headSource{Source: fake.Big(n)}
			m := New(src, Config{Name: "test.pcapng", Parse: testParse, Head: head})
			m = send(m, tea.WindowSizeMsg{Width: 120, Height: 30})
			m = send(m, ProgressMsg{Fraction: 1, Done: true})
			if tc.marked {
				for _, k := range []int{4, 5, 7, 10, 200} {
					m.msgs.Select(k)
					m = send(m, tea.KeyPressMsg{Code: 'm', Text: "m"})
				}
				m = send(m, tea.KeyPressMsg{Code: 'M', Text: "M"})
			}
			match, _, err := testParse(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			src.heads = 0
			m = send(m, filterbar.FilterMsg{Expr: tc.expr, Match: match})
			var ns []int
			for i := range m.msgs.Len() {
				ns = append(ns, m.msgs.Number(i))
			}
			return ns, src.heads
		}
		want, _ := listed(nil)
		got, heads := listed(testHead)
		if !slices.Equal(got, want) {
			t.Errorf("%q (marked only %v) lists %v; want %v", tc.expr, tc.marked, got, want)
		}
		if (heads > 0) != tc.wantHeads {
			t.Errorf("%q (marked only %v) read %d Heads; want Heads read: %v", tc.expr, tc.marked, heads, tc.wantHeads)
		}
		if len(want) == 0 || len(want) == n {
			t.Errorf("%q (marked only %v) lists %d of %d: the test tells nothing", tc.expr, tc.marked, len(want), n)
		}
	}
}

// listing is a fake capture that also gives Heads in bulk (headLister),
// counting the messages read.
type listing struct {
	*fake.Source
	msgs int
}

func (s *listing) Message(n int) *session.Message { s.msgs++; return s.Source.Message(n) }

func (s *listing) Heads(dst []session.Head, from int) []session.Head {
	for n := max(from, 1); n <= s.Len() && len(dst) < cap(dst); n++ {
		dst = append(dst, s.Source.Message(n).Head())
	}
	return dst
}

// TestExpertReadsHeads: the expert scan of a source that gives Heads reads
// only the messages whose Head has a finding, and lists what it lists
// reading every message.
func TestExpertReadsHeads(t *testing.T) {
	for _, size := range []int{6, headBatch + 10} {
		mk := func() *fake.Source {
			s := fake.Capture()
			if size > len(s.Msgs) {
				for n := len(s.Msgs) + 1; n <= size; n++ {
					m := *s.Msgs[n%len(s.Msgs)]
					m.N = n
					m.Findings = nil
					if n == headBatch+3 { // in the second batch of Heads
						m.Findings = s.Msgs[4].Findings
					}
					s.Msgs = append(s.Msgs, &m)
				}
			}
			return s
		}
		text := func(src Source, n int) string {
			msg := expertCmd(src, n)().(overlayMsg)
			var b strings.Builder
			b.WriteString(msg.title + "\n")
			for _, r := range msg.lines(100, 50) {
				b.WriteString(r.Text + "\n")
			}
			return b.String()
		}
		plain := mk()
		want := text(plain, plain.Len())
		heads := &listing{Source: mk()}
		if got := text(heads, size); got != want {
			t.Errorf("%d messages: the expert scan reading Heads lists\n%s\nwant\n%s", size, got, want)
		}
		withFindings := 0
		for n := 1; n <= size; n++ {
			if len(plain.Message(n).Findings) > 0 {
				withFindings++
			}
		}
		if heads.msgs != withFindings || withFindings == 0 {
			t.Errorf("%d messages: the expert scan read %d messages; want the %d with findings", size, heads.msgs, withFindings)
		}
	}
}
