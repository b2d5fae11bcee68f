package session_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// countingSource counts the events read from a capture source.
type countingSource struct {
	capture.Source
	events int
}

func (s *countingSource) Next() (*capture.Event, error) {
	ev, err := s.Source.Next()
	if err == nil {
		s.events++
	}
	return ev, err
}

// cutFixture decodes path into a streaming Index cut at message at (or not
// cut, at ≤ 0) and returns it with the number of events read.
func cutFixture(t *testing.T, path string, at int) (*session.Index, int) {
	t.Helper()
	p := unturned.Default()
	src, err := capture.Open(path, capture.Options{TransportPort: p.TransportPort, QueryPort: p.QueryPort})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	cs := &countingSource{Source: src}
	c := session.NewIndex(p)
	c.SetStream(session.Stream{AsOf: at, Cut: at > 0})
	if err := pipeline.Feed(cs, c, nil); err != nil {
		t.Logf("%s: %v (comparing what was read)", path, err)
	}
	return c, cs.events
}

// markersUpTo says whether the full index's messages 1..at on conn carry
// the client's and the server's USMN marker (wire.md 4.1: in the
// direction's detection message).
func markersUpTo(full *session.Index, conn dissect.Conn, at int) (client, server bool) {
	for n := 1; n <= at; n++ {
		m := full.Detail(n)
		if m == nil || m.Conn != conn {
			continue
		}
		for _, f := range m.Fields {
			if f.Name == "marker.magic" {
				if m.Dir == dissect.C2S {
					client = true
				} else {
					server = true
				}
			}
		}
	}
	return client, server
}

// TestStreamCut holds `tables --at N`'s cut (Stream.Cut, issue 18) to the
// full Index on every fixture capture: the cut reads no further than
// needed (at message 1, fewer events than the capture has), Len is N, the
// connections are a prefix of the full list holding every connection with
// a message up to N, each one's tables, ping statistics and message count
// are the full Index's as of N, its USMN markers those of its messages up
// to N, its findings a prefix of the full Index's, and none is one the end
// of the capture makes ("at the end of the stream") when the cut stopped
// before the end.
func TestStreamCut(t *testing.T) {
	stoppedEarly, endFindingsLeftOut := 0, 0
	for _, path := range streamCaptures(t) {
		full := readFixture(t, path, false)
		_, total := cutFixture(t, path, 0)
		fullConns := full.Connections()
		for _, at := range []int{1, 3, full.Len() / 2, full.Len()} {
			if at < 1 || at > full.Len() {
				continue
			}
			t.Run(fmt.Sprintf("%s/at=%d", filepath.Base(path), at), func(t *testing.T) {
				cut, read := cutFixture(t, path, at)
				if !cut.Cut() || cut.Len() != at {
					t.Fatalf("Cut() = %v, Len() = %d; want true, %d", cut.Cut(), cut.Len(), at)
				}
				if read > total {
					t.Fatalf("cut read %d events; the capture has %d", read, total)
				}
				if read < total {
					stoppedEarly++
				}
				conns := cut.Connections()
				if len(conns) > len(fullConns) {
					t.Fatalf("%d connections at the cut; the full index has %d", len(conns), len(fullConns))
				}
				for i, fc := range fullConns {
					ft := full.TablesOf(i, at)
					if i >= len(conns) {
						if ft != nil && ft.Messages > 0 {
							t.Errorf("connection %d (%s) has %d messages as of %d but is not listed at the cut", i, fc.Conn, ft.Messages, at)
						}
						continue
					}
					ci := conns[i]
					if ci.Conn != fc.Conn || (ci.Proto != "") != (fc.Proto != "") {
						t.Fatalf("connection %d at the cut = %s; want %s", i, ci.Conn, fc.Conn)
					}
					if got := cut.TablesOf(i, at); !reflect.DeepEqual(got, ft) {
						t.Errorf("TablesOf(%d, %d) at the cut = %+v; want %+v", i, at, got, ft)
					}
					if ft != nil && ci.Messages != ft.Messages {
						t.Errorf("connection %d: %d messages at the cut; want %d", i, ci.Messages, ft.Messages)
					}
					if !(fc.Proto != "") {
						if c, s := markersUpTo(full, fc.Conn, at); ci.USMNClient != c || ci.USMNServer != s {
							t.Errorf("connection %d: USMN client %v server %v at the cut; want %v %v", i, ci.USMNClient, ci.USMNServer, c, s)
						}
					}
					if !prefixOf(ci.Findings, fc.Findings) {
						t.Errorf("connection %d findings at the cut are not a prefix of the full index's:\n%v\nwant a prefix of\n%v", i, ci.Findings, fc.Findings)
					}
					for _, f := range fc.Findings[len(ci.Findings):] {
						if read < total && strings.Contains(f.Text, "at the end of the stream") {
							endFindingsLeftOut++
						}
					}
					if read < total {
						for _, f := range ci.Findings {
							if strings.Contains(f.Text, "at the end of the stream") {
								t.Errorf("connection %d: end-of-capture finding at a cut that stopped reading: %s", i, f.Text)
							}
						}
					}
				}
			})
		}
	}
	// The cut must stop reading in the common case, and the fixtures
	// must include a connection whose end-of-capture finding a cut leaves
	// out (hostile.pcapng), or the checks above prove little.
	if stoppedEarly == 0 || endFindingsLeftOut == 0 {
		t.Errorf("cuts that stopped reading early: %d, end-of-capture findings left out: %d; want some of each", stoppedEarly, endFindingsLeftOut)
	}
}

// prefixOf reports whether a is the start of b.
func prefixOf(a, b []dissect.Finding) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
