package session_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// streamFixture decodes path through the pipeline into a streaming Index
// configured by st (its Settled gets the Index once it exists).
func streamFixture(t *testing.T, path string, store bool, st func(*session.Index) session.Stream) *session.Index {
	t.Helper()
	p := unturned.Default()
	src, err := capture.Open(path, capture.Options{TransportPort: p.TransportPort, QueryPort: p.QueryPort})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	c := session.NewIndex(p)
	c.SetStream(st(c))
	if store {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		c.SetStore(f)
	}
	if err := pipeline.Feed(src, c, nil); err != nil {
		t.Logf("%s: %v (comparing what was read)", path, err)
	}
	return c
}

func streamCaptures(t *testing.T) []string {
	var out []string
	for _, g := range []string{"../fixtures/captures/*.pcap*", "../fixtures/captures/*/*.pcap*"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 10 {
		t.Fatalf("found %d fixture captures; want the fixtures", len(out))
	}
	return out
}

// TestStreamMatchesIndex holds a streaming Index to the full one on every
// fixture capture (mid-stream joins, inferred widths and ID bit counts,
// hostile framing), with the bytes in the arena and in a store: Settled
// sees every message once, in order; the dump --json lines (one at a time
// and in batches), Message and Detail, and the tables at the end and as of
// several messages are the same bytes.
func TestStreamMatchesIndex(t *testing.T) {
	for _, path := range streamCaptures(t) {
		for _, store := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/store=%v", filepath.Base(path), store), func(t *testing.T) {
				full := readFixture(t, path, store)
				want := full.AppendJSONRange(nil, 1, full.Len(), nil)
				var got, batched, msgs, wantMsgs []byte
				var b session.JSONBatch
				next := 1
				sc := streamFixture(t, path, store, func(c *session.Index) session.Stream {
					return session.Stream{Spans: true, Settled: func(n int) error {
						if n != next {
							t.Fatalf("Settled(%d); want %d", n, next)
						}
						next++
						got = c.AppendJSONOne(got, n, nil)
						c.AddJSON(&b, n, nil)
						msgs = c.Message(n).AppendJSON(msgs)
						msgs = c.Detail(n).AppendJSON(msgs)
						return nil
					}}
				})
				if next-1 != full.Len() || sc.Len() != full.Len() {
					t.Fatalf("Settled up to %d, Len %d; want %d", next-1, sc.Len(), full.Len())
				}
				batched = b.AppendJSON(nil)
				for n := 1; n <= full.Len(); n++ {
					wantMsgs = full.Message(n).AppendJSON(wantMsgs)
					wantMsgs = full.Detail(n).AppendJSON(wantMsgs)
				}
				if !bytes.Equal(got, want) || !bytes.Equal(batched, want) {
					t.Errorf("stream dump --json differs from the Index's (%d, batched %d, want %d bytes)", len(got), len(batched), len(want))
				}
				if !bytes.Equal(msgs, wantMsgs) {
					t.Errorf("stream Message/Detail differ from the Index's")
				}
				for _, asOf := range []int{0, 1, 3, full.Len() / 2, full.Len() - 1, full.Len()} {
					if asOf < 0 || asOf > full.Len() || (asOf == 0) != (asOf <= 0) {
						continue
					}
					w, err := full.TablesJSONAt(asOf)
					if err != nil {
						t.Fatal(err)
					}
					st := streamFixture(t, path, store, func(*session.Index) session.Stream { return session.Stream{AsOf: asOf} })
					g, err := st.TablesJSONAt(asOf)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(g, w) {
						t.Errorf("stream tables as of %d:\n%s\nwant\n%s", asOf, g, w)
					}
				}
			})
		}
	}
}

// TestStreamTally: a Stream without Spans, with Tallies or not (stats'
// tallies, issue 26), hands TallyOf the bytes of every Unturned message,
// which Tally.Spans decodes again into the field names and bits of
// Detail's fields, without their values, also from a copy of the bytes
// after Settled returned; and Detail, Message and the dump --json lines of
// that Stream are the full Index's, but for an asker's with Tallies
// (handed out before its answer, it has no pair).
func TestStreamTally(t *testing.T) {
	for _, tallies := range []bool{false, true} {
		for _, store := range []bool{false, true} {
			for _, path := range streamCaptures(t) {
				t.Run(fmt.Sprintf("%s/tallies=%v/store=%v", filepath.Base(path), tallies, store), func(t *testing.T) {
					testStreamTally(t, path, tallies, store)
				})
			}
		}
	}
}

// asker reports whether message n of the full Index c asks (it has a
// pair and is not the answer).
func asker(c *session.Index, n int) bool {
	m := c.Message(n)
	return m != nil && m.Pair > 0 && !m.HasLatency
}

func testStreamTally(t *testing.T, path string, tallies, store bool) {
	full := readFixture(t, path, false)
	want := full.AppendJSONRange(nil, 1, full.Len(), nil)
	var got, msgs, wantMsgs []byte
	var b session.JSONBatch
	var later []session.Tally
	var fields [][]netpak.Span
	var sp netpak.Spans
	var dec unturned.Decoded
	sc := streamFixture(t, path, store, func(c *session.Index) session.Stream {
		return session.Stream{Tallies: tallies, Settled: func(n int) error {
			var tl session.Tally
			if c.TallyOf(n, &tl) && tl.Rec == nil {
				d := c.Detail(n)
				if tl.Kind != d.Kind || len(tl.Data) != len(d.Data) {
					t.Fatalf("message %d: tally kind %v, %d bytes; Detail %v, %d", n, tl.Kind, len(tl.Data), d.Kind, len(d.Data))
				}
				fields = append(fields, append([]netpak.Span(nil), d.Fields...))
				tl.Data = append([]byte(nil), tl.Data...)
				later = append(later, tl)
			}
			if tallies && asker(full, n) {
				return nil // handed out before its answer: no pair
			}
			got = c.AppendJSONOne(got, n, nil)
			c.AddJSON(&b, n, nil)
			msgs = c.Message(n).AppendJSON(msgs)
			msgs = c.Detail(n).AppendJSON(msgs)
			return nil
		}}
	})
	if sc.Len() != full.Len() {
		t.Fatalf("Len %d; want %d", sc.Len(), full.Len())
	}
	askers := 0
	for n := 1; n <= full.Len(); n++ {
		if tallies && asker(full, n) {
			askers++
			continue
		}
		wantMsgs = full.Message(n).AppendJSON(wantMsgs)
		wantMsgs = full.Detail(n).AppendJSON(wantMsgs)
	}
	if askers > 0 {
		want = nil
		for n := 1; n <= full.Len(); n++ {
			if !asker(full, n) {
				want = full.AppendJSONRange(want, n, n, nil)
			}
		}
	}
	if batched := b.AppendJSON(nil); !bytes.Equal(got, want) || !bytes.Equal(batched, want) {
		t.Errorf("tally stream dump --json differs from the Index's (%d, batched %d, want %d bytes)", len(got), len(batched), len(want))
	}
	if !bytes.Equal(msgs, wantMsgs) {
		t.Errorf("tally stream Message/Detail differ from the Index's")
	}
	if len(later) == 0 {
		t.Fatal("no tallies")
	}
	for k := range later {
		tl := &later[k]
		spans := tl.Spans(&sp, &dec)
		if len(spans) != len(fields[k]) {
			t.Fatalf("message %d: %d tally spans; Detail has %d fields", tl.N, len(spans), len(fields[k]))
		}
		for i, s := range spans {
			f := fields[k][i]
			if s.Value != nil || s.Name != f.Name || s.Bit != f.Bit || s.Bits != f.Bits {
				t.Fatalf("message %d: tally span %d = %+v; want %+v without its value", tl.N, i, s, f)
			}
		}
	}
	t.Logf("%d tallies", len(later))
}

// TestStreamLazyFields holds a Lazy Stream without Spans (dump --json and
// plain dump, issue 28) to the full Index on every fixture capture: the
// feeder decodes without spans and leaves each Unturned message's fields
// and most summaries to the batch (Brief has no fields), and the batch's
// JSON lines and its Messages, which decode them from the bytes, are the
// full Index's bytes, and Brief's summaries the full Index's.
func TestStreamLazyFields(t *testing.T) {
	for _, path := range streamCaptures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			full := readFixture(t, path, false)
			want := full.AppendJSONRange(nil, 1, full.Len(), nil)
			var wantMsgs []byte
			for n := 1; n <= full.Len(); n++ {
				wantMsgs = full.Detail(n).AppendJSON(wantMsgs)
			}
			var lines, msgs, briefs session.JSONBatch
			lazy := 0
			streamFixture(t, path, false, func(c *session.Index) session.Stream {
				return session.Stream{Lazy: true, Settled: func(n int) error {
					c.AddJSON(&lines, n, nil)
					c.AddJSON(&msgs, n, nil)
					c.AddJSON(&briefs, n, nil)
					return nil
				}}
			})
			for i := range briefs.Len() {
				// Plain dump's lines: the summary, without the fields.
				m := briefs.Brief(i)
				if want := full.Message(m.N); m.Summary != want.Summary {
					t.Errorf("message %d: Brief's summary %q; want %q", m.N, m.Summary, want.Summary)
				}
			}
			for i := range lines.Len() {
				if m := lines.Brief(i); m.Record() == nil && m.Fields == nil {
					lazy++
				}
			}
			if got := lines.AppendJSON(nil); !bytes.Equal(got, want) {
				t.Errorf("lazy batch's dump --json differs from the Index's (%d bytes; want %d)", len(got), len(want))
			}
			var got []byte
			for i := range msgs.Len() {
				got = msgs.Message(i).AppendJSON(got)
			}
			if !bytes.Equal(got, wantMsgs) {
				t.Errorf("lazy batch's Messages differ from the Index's Details (%d bytes; want %d)", len(got), len(wantMsgs))
			}
			if full.Len() > 0 && lazy == 0 && bytes.Contains(want, []byte(`"proto":"unturned"`)) {
				t.Errorf("no Unturned message of %d was left lazy", full.Len())
			}
		})
	}
}

// TestStreamSharedBatches holds batches made together (NewJSONBatches),
// whose encoders share their caches, to the full Index: a capture's
// messages dealt to them in turns of a few are the Index's records once
// the batches are encoded in the same turns.
func TestStreamSharedBatches(t *testing.T) {
	for _, path := range streamCaptures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			full := readFixture(t, path, false)
			want := full.AppendJSONRange(nil, 1, full.Len(), nil)
			bs := session.NewJSONBatches(3)
			var got []byte
			k := 0
			streamFixture(t, path, false, func(c *session.Index) session.Stream {
				return session.Stream{Lazy: true, Settled: func(n int) error {
					b := bs[k%len(bs)]
					c.AddJSON(b, n, nil)
					if b.Len() == 5 {
						got = b.AppendJSON(got)
						b.Reset()
						k++
					}
					return nil
				}}
			})
			for range bs {
				b := bs[k%len(bs)]
				got = b.AppendJSON(got)
				b.Reset()
				k++
			}
			if !bytes.Equal(got, want) {
				t.Errorf("shared batches' dump --json differs from the Index's (%d bytes; want %d)", len(got), len(want))
			}
		})
	}
}

// oddOut is a Selector that reads each message whole and drops the odd
// ones.
type oddOut struct{}

func (oddOut) HeadOnly() bool                { return false }
func (oddOut) MatchHead(session.Head) bool   { return true }
func (oddOut) Match(m *session.Message) bool { return m.N%2 == 0 }

// TestStreamBatchSlots checks that a JSONBatch's slots, filled in place
// without being cleared (a rejected message's and a reset batch's are
// cleared for the next), give the Index's dump --json with a selector
// that rejects every other message after filling its slot.
func TestStreamBatchSlots(t *testing.T) {
	for _, path := range streamCaptures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			full := readFixture(t, path, false)
			want := full.AppendJSONRange(nil, 1, full.Len(), oddOut{})
			var b session.JSONBatch
			var got []byte
			streamFixture(t, path, false, func(c *session.Index) session.Stream {
				return session.Stream{Lazy: true, Settled: func(n int) error {
					c.AddJSON(&b, n, oddOut{})
					if b.Len() == 3 {
						got = b.AppendJSON(got)
						b.Reset()
					}
					return nil
				}}
			})
			got = b.AppendJSON(got)
			if !bytes.Equal(got, want) {
				t.Errorf("dump --json of the even messages differs from the Index's (%d bytes; want %d)", len(got), len(want))
			}
		})
	}
}
