package render

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/usmnscope/usmnscope/decode"
	"io"
	"sync/atomic"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
)

// Text prints a text dump (dump, -V, -x): messages as they settle, so that a long capture or a pipe
// shows output before the end, and `dump | head` stops reading early.
type Text struct {
	Out     *bufio.Writer
	Filter  *filter.Filter
	Verbose bool // -V: the field tree or layer tree
	Hex     bool // -x: the bytes as hex and ASCII
	format  Format

	// The plain lines' batch path (Lines): the encoding goroutine's
	// buffer and connection texts.
	buf   []byte
	conns map[dissect.Conn]string
}

// Lines starts plain dump's lines on a second goroutine, as dump --json
// encodes its records (issue 28: plain dump within 1.5× dump --json):
// Settled copies each settled message into a batch (session.JSONBatch,
// the Stream decoding with spans as dump --json's does) and the goroutine
// writes the batch's lines, Line's bytes, in order. Not for -V or -x.
// The JSONStream's Settled, Flush and Stop run it; LinesSettled keeps
// the time of message 1 the lines count from.
func (d *Text) Lines() *JSONStream {
	return NewBatches(d.Out, d.Selector(), d.writeLines)
}

// LinesSettled is the Stream's Settled of the Lines path.
func (d *Text) LinesSettled(js *JSONStream, dc *session.Index, n int) error {
	if n == 1 {
		// Read before any batch is handed over: the goroutine sees it.
		if _, t, ok := dc.Stamp(1); ok {
			d.format.Start = t
		}
	}
	return js.Settled(dc, n)
}

// writeLines writes the lines of b's messages (the batch goroutine's).
func (d *Text) writeLines(b *session.JSONBatch) error {
	buf := d.buf[:0]
	if d.conns == nil {
		d.conns = map[dissect.Conn]string{}
	}
	for i := 0; i < b.Len(); i++ {
		m := b.Brief(i)
		conn, ok := d.conns[m.Conn]
		if !ok {
			conn = m.Conn.String()
			d.conns[m.Conn] = conn
		}
		if r := m.Record(); r != nil {
			// Message made the record's line its Summary.
			buf = append(appendRecLine(buf, decode.BriefOf(r), conn, m.Summary, d.format.Start), '\n')
			continue
		}
		buf = append(d.format.AppendLine(buf, m, conn), '\n')
	}
	d.buf = buf
	_, err := d.Out.Write(buf)
	return err
}

// Selector is the dump's filter as a session.Selector: nil without one, so
// that an unfiltered dump asks nothing of each message's head.
func (d *Text) Selector() session.Selector {
	if d.Filter == nil {
		return nil
	}
	return d.Filter
}

func (d *Text) print(dc *session.Index, m *session.Message) error {
	if m.Record() != nil {
		return d.printRec(m)
	}
	if d.Verbose {
		if full := dc.Detail(m.N); full != nil {
			m = full
		}
	}
	var err error
	if d.Verbose {
		_, err = d.Out.WriteString(d.format.Tree(m))
	} else {
		_, err = d.Out.WriteString(d.format.Line(m) + "\n")
	}
	if err == nil && d.Hex {
		_, err = d.Out.WriteString(HexASCII(m.Data))
	}
	return err
}

// One prints message n from a Stream's Settled (text: dump, -V, -x).
func (d *Text) One(dc *session.Index, n int) error {
	m := dc.Message(n)
	if m == nil {
		return nil
	}
	if n == 1 {
		d.format.Start = m.Time
	}
	if !d.Filter.Match(m) {
		return nil
	}
	return d.print(dc, m)
}

// Trailer prints the connection and capture findings after the messages
// of a text dump: what went wrong outside any one message (gaps, resync,
// non-game traffic).
func (d *Text) Trailer(dc *session.Index) error {
	for _, ci := range dc.Connections() {
		for _, f := range ci.Findings {
			if _, err := fmt.Fprintf(d.Out, "# %s: %s %s: %s\n", ci.Conn, f.Severity, f.Group, termsafe.Escaped(f.Text)); err != nil {
				return err
			}
		}
	}
	for _, f := range dc.Findings() {
		if _, err := fmt.Fprintf(d.Out, "# capture: %s %s: %s\n", f.Severity, f.Group, termsafe.Escaped(f.Text)); err != nil {
			return err
		}
	}
	return nil
}

// printRec prints a hosted protocol's message (a ULinkRPC one, any
// registered protocol's: decode.Record) of a text dump, where its number
// puts it among the Unturned ones: its line, with -V its layer tree
// (Record.TreeText), and with -x its bytes (a ULinkRPC envelope).
func (d *Text) printRec(m *session.Message) error {
	line := RecLine(m.Record(), d.format.Start) + "\n"
	if d.Verbose {
		line += m.Record().TreeText()
	}
	if _, err := d.Out.WriteString(line); err != nil {
		return err
	}
	if data := m.Record().Meta().Data; d.Hex && len(data) > 0 {
		_, err := d.Out.WriteString(HexASCII(data))
		return err
	}
	return nil
}

// JSONStream is dump --json over a streaming Index (issue 18): the feeder
// copies each settled message into a batch (session.JSONBatch) and hands
// full batches to one goroutine that encodes and writes them in order, so
// that on two cores decoding and encoding overlap, with one hand-over per
// JSONBatchLen messages. A write error stops the copying; decoding ends
// with the capture as before.
type JSONStream struct {
	out  io.Writer
	sel  session.Selector
	cur  *session.JSONBatch
	full chan *session.JSONBatch
	free chan *session.JSONBatch
	done chan struct{}

	failed atomic.Bool
	err    error // the goroutine's; read after done

	// sink, when not nil, takes each full batch instead of its JSON
	// lines (export --format parquet: the same records as rows).
	sink func(*session.JSONBatch) error
}

// JSONBatchLen is how many messages one batch carries; jsonBatches how
// many batches circulate (one filling, the others queued or encoding).
// The batches are most of what dump --json keeps live, and the heap grows
// to twice that before a collection: at 2048 messages (2 MiB a batch) the
// peak RSS rose from 33 MiB at 200k messages to 44 at 4M, as the run
// outlived the first collections; at 512 it is 21 to 24 MiB (issue 18:
// flat in the message count), for one hand-over per 512 messages.
//
// A batch is also handed on once it holds JSONBatchBytes (session's
// JSONBatch.Held): the jsonBatches batches and the JSON of the one being
// written then hold some tens of MiB whatever the messages' sizes, and the
// feeder waits for a free batch (issue 29).
const (
	JSONBatchLen   = 512
	JSONBatchBytes = 4 << 20
	jsonBatches    = 4
)

// ErrStopped stops the feed's printing after JSONStream's write error,
// which Stop returns.
var ErrStopped = errors.New("dump: output stopped")

// NewJSON starts the JSON stream of the messages sel selects (nil: all)
// to out; Stop ends it.
func NewJSON(out io.Writer, sel session.Selector) *JSONStream { return NewBatches(out, sel, nil) }

// NewBatches is NewJSON handing each batch to sink, when not nil, instead
// of writing its JSON lines to out.
func NewBatches(out io.Writer, sel session.Selector, sink func(*session.JSONBatch) error) *JSONStream {
	s := &JSONStream{out: out, sel: sel, sink: sink, full: make(chan *session.JSONBatch, jsonBatches), free: make(chan *session.JSONBatch, jsonBatches), done: make(chan struct{})}
	// Encoded on one goroutine (run): they share its caches.
	bs := session.NewJSONBatches(jsonBatches)
	for _, b := range bs[1:] {
		s.free <- b
	}
	s.cur = bs[0]
	go s.run()
	return s
}

func (s *JSONStream) run() {
	defer close(s.done)
	var buf []byte
	for b := range s.full {
		if b == nil { // Flush
			if f, ok := s.out.(interface{ Flush() error }); ok && s.err == nil {
				if err := f.Flush(); err != nil {
					s.err = err
					s.failed.Store(true)
				}
			}
			continue
		}
		if s.err == nil {
			var err error
			if s.sink != nil {
				err = s.sink(b)
			} else {
				buf = b.AppendJSON(buf[:0])
				_, err = s.out.Write(buf)
			}
			if err != nil {
				s.err = err
				s.failed.Store(true)
			}
		}
		b.Reset()
		s.free <- b
	}
}

// Settled is the Stream's Settled: message n into the batch.
func (s *JSONStream) Settled(dc *session.Index, n int) error {
	if s.failed.Load() {
		return ErrStopped
	}
	dc.AddJSON(s.cur, n, s.sel)
	if s.cur.Len() >= JSONBatchLen || s.cur.Held() >= JSONBatchBytes {
		s.full <- s.cur
		s.cur = <-s.free
	}
	return nil
}

// Flush hands over the batch being filled and has the goroutine write out
// what it wrote so far: the input went quiet (session.Stream.Quiet).
func (s *JSONStream) Flush() {
	if s.cur.Len() > 0 {
		s.full <- s.cur
		s.cur = <-s.free
	}
	s.full <- nil
}

// Stop hands over the last batch, waits for the goroutine and returns its
// write error; the dumper's output is then the caller's again.
func (s *JSONStream) Stop() error {
	if s.cur.Len() > 0 {
		s.full <- s.cur
	}
	close(s.full)
	<-s.done
	return s.err
}

// End is Stop after the read that fed the stream returned err: the
// stream's own stop (ErrStopped) is no error of the read's, and the first
// error of the two is returned.
func (s *JSONStream) End(err error) error {
	if errors.Is(err, ErrStopped) {
		err = nil
	}
	if serr := s.Stop(); err == nil {
		err = serr
	}
	return err
}

// Dump is what `dump` prints as a capture is read (issue 18): each
// message as it settles, from its one decoding, and then forgotten. With
// schemas, a reference waiting for its listener ID settles once the ID is
// defined (at most session's late-resolution bound later), as
// Index.Settled has it. Plain lines and --json are encoded on a second
// goroutine (Lines, NewJSON); -V and -x are printed by the feeder (One).
type Dump struct {
	*Text
	json bool
	js   *JSONStream // the second goroutine's stream; nil for -V and -x
}

// NewDump starts the dump of t, as JSON records when asJSON; End ends it.
func NewDump(t *Text, asJSON bool) *Dump {
	d := &Dump{Text: t, json: asJSON}
	switch {
	case asJSON:
		d.js = NewJSON(t.Out, t.Selector())
	case d.lines():
		d.js = t.Lines()
	}
	return d
}

// lines says whether d prints the plain lines.
func (d *Dump) lines() bool { return !d.json && !d.Verbose && !d.Hex }

// Stream is the session.Stream of dc that prints d: the settled messages
// printed, and what was printed written out when the input goes quiet.
func (d *Dump) Stream(dc *session.Index) session.Stream {
	settled := func(n int) error { return d.One(dc, n) }
	switch {
	case d.json:
		settled = func(n int) error { return d.js.Settled(dc, n) }
	case d.lines():
		settled = func(n int) error { return d.LinesSettled(d.js, dc, n) }
	}
	quiet := func() { d.Out.Flush() }
	if d.js != nil {
		quiet = d.js.Flush
	}
	// The JSON records' and lines' fields are left to the batch goroutine
	// (session.Stream.Lazy without Spans): the feeder decodes each message
	// once, without spans, as tables does (issue 28).
	return session.Stream{Spans: d.Verbose, Lazy: d.json || d.lines(), Settled: settled, Quiet: quiet}
}

// End ends the printing after the read that fed it returned err (End of
// the JSONStream) and returns the first error.
func (d *Dump) End(err error) error {
	if d.js == nil {
		return err
	}
	return d.js.End(err)
}
