package session_test

import (
	"fmt"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
)

// The index hosts a protocol that keeps tables of its own and labels its
// connections through decode's interfaces alone (issue 23): a counting
// protocol made here, which names no ULinkRPC type, gets its label, its
// empty tables, its tables as of a message and its `tables --json` entry.

// countRecord is one datagram of the counting protocol.
type countRecord struct{ m decode.Meta }

func (r *countRecord) Meta() decode.Meta               { return r.m }
func (r *countRecord) Line() string                    { return "count" }
func (r *countRecord) Tree() []decode.Node             { return nil }
func (r *countRecord) TreeText() string                { return "" }
func (r *countRecord) AppendJSON(dst, _ []byte) []byte { return append(dst, `{}`...) }
func (r *countRecord) Values(string) ([]any, bool)     { return nil, false }
func (r *countRecord) Clone() decode.Record            { cp := *r; return &cp }
func (r *countRecord) setN(n int)                      { r.m.N = n }

// countConn counts its records' bytes (Tallied) and labels itself.
type countConn struct {
	cfg   decode.Config
	n     int
	bytes int
}

var (
	_ decode.Tallied = (*countConn)(nil)
	_ decode.Labeled = (*countConn)(nil)
)

func (c *countConn) Bytes(dissect.Dir, []byte, decode.Stamp) {}
func (c *countConn) Gap(dissect.Dir, int, decode.Stamp)      {}
func (c *countConn) Datagram(d dissect.Dir, b []byte, at decode.Stamp) {
	c.cfg.Yield(&countRecord{decode.Meta{Frame: at.Frame, Time: at.Time, Conn: c.cfg.Conn, Dir: d, Proto: "count",
		Name: "Count", Len: len(b), Wire: len(b), Data: append([]byte(nil), b...)}}, at)
}
func (c *countConn) End(decode.Stamp)                   {}
func (c *countConn) Finish()                            {}
func (c *countConn) Holding() (uint64, bool)            { return 0, false }
func (c *countConn) Abandon()                           {}
func (c *countConn) Findings() []decode.ConnFinding     { return nil }
func (c *countConn) Waiting(decode.Record) bool         { return false }
func (c *countConn) Len() int                           { return c.n }
func (c *countConn) AppendTablesJSON(dst []byte) []byte { return dst }
func (c *countConn) Label() string                      { return "count udp" }
func (c *countConn) Tables() decode.Tables              { return &countTables{c.bytes, c.n} }
func (c *countConn) Empty() decode.Tables               { return &countTables{} }
func (c *countConn) Tally() decode.Tally                { return &countTally{} }
func (c *countConn) Numbered(r decode.Record, n int) {
	r.(*countRecord).setN(n)
	c.n++
	c.bytes += r.Meta().Len
}
func (c *countConn) AppendTablesJSONOf(dst []byte, t decode.Tables, findings int) []byte {
	ct := t.(*countTables)
	return fmt.Appendf(dst, `{"proto":"count","messages":%d,"bytes":%d}`, ct.records, ct.bytes)
}

type countTally struct{ bytes int }

func (t *countTally) Add(r decode.Record)              { t.bytes += r.Meta().Len }
func (t *countTally) Tables(records int) decode.Tables { return &countTables{t.bytes, records} }

type countTables struct{ bytes, records int }

func (t *countTables) WriteText(w io.Writer) {
	fmt.Fprintf(w, "count, %d records, %d bytes\n", t.records, t.bytes)
}
func (t *countTables) Rows() []decode.Row { return []decode.Row{{Text: fmt.Sprint(t.bytes)}} }
func (t *countTables) Goes() string       { return "" }

func TestHostedTallied(t *testing.T) {
	ix := session.NewIndex(nil)
	conn := dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.2:5000"), Server: netip.MustParseAddrPort("10.0.0.1:9000")}
	p := &decode.Protocol{Name: "count", New: func(cfg decode.Config) decode.Conn { return &countConn{cfg: cfg} }}
	h := ix.OpenConn(p, decode.Config{Conn: conn, Datagram: true})
	cs := ix.Connections()
	if len(cs) != 1 || cs[0].Label != "count udp" || cs[0].ProtoTables(nil) == nil {
		t.Fatalf("connections %+v; want one labelled \"count udp\" with empty tables", cs)
	}
	t0 := time.Unix(1, 0).UTC()
	for i, n := range []int{3, 5, 7} {
		h.Feed(t0.Add(time.Duration(i)*time.Millisecond), i+1, func(st decode.Stamp) {
			h.Conn().Datagram(dissect.C2S, make([]byte, n), st)
		})
	}
	ix.Finish()
	var sb strings.Builder
	ix.Tables(conn, 2).Proto().WriteText(&sb)
	if got, want := sb.String(), "count, 2 records, 8 bytes\n"; got != want {
		t.Errorf("tables as of 2 = %q; want %q", got, want)
	}
	sb.Reset()
	ix.Tables(conn, 0).Proto().WriteText(&sb)
	if got, want := sb.String(), "count, 3 records, 15 bytes\n"; got != want {
		t.Errorf("tables at the end = %q; want %q", got, want)
	}
	b, err := ix.TablesJSON()
	if err != nil || !strings.Contains(string(b), `"bytes": 15`) {
		t.Errorf("TablesJSON = %s, %v; want the count connection's entry", b, err)
	}
}
