package main

import (
	"bufio"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/spf13/cobra"
	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// dumpOptions are what a dump command line asks for.
type dumpOptions struct {
	IO      *streams
	profile func() (*unturned.Profile, error)
	schemas func() (*schema.Set, error)
	rpc     func() (*pipeline.RPC, error)

	capture string // CAPTURE: a file, or - for standard input
	verbose bool
	hex     bool // -x: each message's bytes as hex and ASCII
	json    bool
	filter  string
}

// newCmdDump returns the dump command; runF, when not nil, runs instead of
// runDump with the parsed options (tests).
func newCmdDump(s *streams, runF func(*dumpOptions) error) *cobra.Command {
	o := &dumpOptions{IO: s}
	cmd := &cobra.Command{
		Use:   "dump CAPTURE",
		Short: "Print the decoded messages of a capture: SystemSockets, USMN and ULinkRPC",
		Long: `Decodes every SystemSockets message and every ULinkRPC frame of a pcap or
pcapng capture (a file, or - for standard input) and prints one line per
message: number, time since the first message, connection, direction,
message name (with ⁺ when its enum was read widened) and a summary. -V adds the field tree with each
field's bit offset, bit length and Wireshark-style bit string, after the
message's bytes as one hex string (paste it into usmnscope bits); -x prints
each message's bytes as hex and ASCII (like tshark -x); --json prints NDJSON
records (every key in docs/json.md), the bytes in "hex".

A filter selects messages: ==, !=, ~ (substring), <, <=, >, >= over the
fields dir, msg, listener, id (listener.id), server_id, client_id, severity
(note<warn<error), conn, n, len, widened, mode, group, proto (unturned or
ulinkrpc) and latency (a duration: latency>1ms), and for ULinkRPC service,
method, service_id, method_id, request_id, status and payload.<member>,
combined with &&, || and ! and parentheses. A bare word matches the message
name. With payload schemas (--schema, docs/schema.md), payload_message,
payload_method and every payload.<field> (payload.text ~ "hi",
payload.items[].amount > 1) too. Messages of both protocols are numbered
and printed in one sequence, by arrival.`,
		Example: `  usmnscope dump capture.pcapng
  usmnscope dump -V --filter 'msg==InvokeMessageListener && listener~Chat' capture.pcapng
  usmnscope dump -x --filter 'n==12' capture.pcapng
  usmnscope dump --json --filter 'severity>=warn' capture.pcapng | jq .expert
  usmnscope dump --schema chat.toml --filter 'payload_message == Say' capture.pcapng
  tcpdump -U -w - port 27016 | usmnscope dump -`,
		Args: argNames("CAPTURE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.capture = args[0]
			o.profile = profileLoader(cmd)
			o.schemas = schemaLoader(cmd)
			o.rpc = rpcLoader(cmd)
			if runF != nil {
				return runF(o)
			}
			return runDump(o)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.verbose, "verbose", "V", false, "print the field tree of each message with bit strings")
	f.BoolVarP(&o.hex, "hex", "x", false, "print each message's bytes as hex and ASCII after it (like tshark -x)")
	f.BoolVar(&o.json, "json", false, "print one JSON record per message (NDJSON, docs/json.md)")
	f.StringVar(&o.filter, "filter", "", "print only the messages matching `EXPR` (see above)")
	return cmd
}

// dumper prints messages as they settle, so that a long capture or a pipe
// shows output before the end, and `dump | head` stops reading early.
type dumper struct {
	o      dumpOptions
	f      *filter.Filter
	out    *bufio.Writer
	format lineFormat
}

// selector is the dump's filter as a session.Selector: nil without one, so
// that an unfiltered dump asks nothing of each message's head.
func (d *dumper) selector() session.Selector {
	if d.f == nil {
		return nil
	}
	return d.f
}

func (d *dumper) print(dc *session.Index, m *session.Message) error {
	if m.RPC != nil {
		return d.printRPC(m)
	}
	if d.o.verbose {
		if full := dc.Detail(m.N); full != nil {
			m = full
		}
	}
	var err error
	if d.o.verbose {
		_, err = d.out.WriteString(d.format.tree(m))
	} else {
		_, err = d.out.WriteString(d.format.line(m) + "\n")
	}
	if err == nil && d.o.hex {
		_, err = d.out.WriteString(hexASCII(m.Data))
	}
	return err
}

// one prints message n from a Stream's Settled (text: dump, -V, -x).
func (d *dumper) one(dc *session.Index, n int) error {
	m := dc.Message(n)
	if m == nil {
		return nil
	}
	if n == 1 {
		d.format.start = m.Time
	}
	if !d.f.Match(m) {
		return nil
	}
	return d.print(dc, m)
}

// trailer prints the connection and capture findings after the messages
// of a text dump: what went wrong outside any one message (gaps, resync,
// non-game traffic).
func (d *dumper) trailer(dc *session.Index) error {
	for _, ci := range dc.Connections() {
		for _, f := range ci.Findings {
			if _, err := fmt.Fprintf(d.out, "# %s: %s %s: %s\n", ci.Conn, f.Severity, f.Group, termsafe.Escaped(f.Text)); err != nil {
				return err
			}
		}
	}
	for _, f := range dc.Findings() {
		if _, err := fmt.Fprintf(d.out, "# capture: %s %s: %s\n", f.Severity, f.Group, termsafe.Escaped(f.Text)); err != nil {
			return err
		}
	}
	return nil
}

func runDump(o *dumpOptions) error {
	if o.json && o.verbose {
		return usageError{fmt.Errorf("dump: --json and -V exclude each other")}
	}
	if o.json && o.hex {
		return usageError{fmt.Errorf("dump: --json and -x exclude each other (the JSON records carry the bytes in \"hex\")")}
	}
	flt, err := filter.Parse(o.filter)
	if err != nil {
		return usageError{err}
	}
	p, err := o.profile()
	if err != nil {
		return err
	}
	set, err := loadWith(o.schemas)
	if err != nil {
		return err
	}
	rp, err := loadRPC(o.rpc)
	if err != nil {
		return err
	}
	d := &dumper{o: *o, f: flt, out: newOutput(o.IO.out)}
	defer setTuning(setTuning(streamTuning))
	// Streaming (issue 18): each message is printed as it settles, from
	// its one decoding, and then forgotten. With schemas, a reference
	// waiting for its listener ID settles once the ID is defined (at most
	// session's late-resolution bound later), as Index.Settled has it.
	var js *jsonStream
	if o.json {
		js = newJSONStream(d)
	}
	dc, err := readCaptureRPC(o.IO, p, set, rp, o.capture, nil, func(dc *session.Index) session.Stream {
		settled := func(n int) error { return d.one(dc, n) }
		if js != nil {
			settled = func(n int) error { return js.settled(dc, n) }
		}
		return session.Stream{Spans: o.json || o.verbose, Settled: settled}
	})
	if js != nil {
		if errors.Is(err, errJSONStopped) {
			err = nil
		}
		if serr := js.stop(); err == nil {
			err = serr
		}
	}
	if err == nil && !o.json && flt == nil {
		err = d.trailer(dc)
	}
	if ferr := d.out.Flush(); err == nil {
		err = ferr
	}
	return err
}

// jsonStream is dump --json over a streaming Index (issue 18): the feeder
// copies each settled message into a batch (session.JSONBatch) and hands
// full batches to one goroutine that encodes and writes them in order, so
// that on two cores decoding and encoding overlap, with one hand-over per
// jsonBatchLen messages. A write error stops the copying; decoding ends
// with the capture as before.
type jsonStream struct {
	d    *dumper
	cur  *session.JSONBatch
	full chan *session.JSONBatch
	free chan *session.JSONBatch
	done chan struct{}

	failed atomic.Bool
	err    error // the goroutine's; read after done
}

// jsonBatchLen is how many messages one batch carries; jsonBatches how
// many batches circulate (one filling, the others queued or encoding).
// The batches are most of what dump --json keeps live, and the heap grows
// to twice that before a collection: at 2048 messages (2 MiB a batch) the
// peak RSS rose from 33 MiB at 200k messages to 44 at 4M, as the run
// outlived the first collections; at 512 it is 21 to 24 MiB (issue 18:
// flat in the message count), for one hand-over per 512 messages.
const (
	jsonBatchLen = 512
	jsonBatches  = 4
)

// errJSONStopped stops the feed's printing after jsonStream's write error,
// which stop returns.
var errJSONStopped = errors.New("dump: output stopped")

func newJSONStream(d *dumper) *jsonStream {
	s := &jsonStream{d: d, full: make(chan *session.JSONBatch, jsonBatches), free: make(chan *session.JSONBatch, jsonBatches), done: make(chan struct{})}
	for range jsonBatches - 1 {
		s.free <- &session.JSONBatch{}
	}
	s.cur = &session.JSONBatch{}
	go s.run()
	return s
}

func (s *jsonStream) run() {
	defer close(s.done)
	var buf []byte
	for b := range s.full {
		if s.err == nil {
			buf = b.AppendJSON(buf[:0])
			if _, err := s.d.out.Write(buf); err != nil {
				s.err = err
				s.failed.Store(true)
			}
		}
		b.Reset()
		s.free <- b
	}
}

// settled is the Stream's Settled: message n into the batch.
func (s *jsonStream) settled(dc *session.Index, n int) error {
	if s.failed.Load() {
		return errJSONStopped
	}
	dc.AddJSON(s.cur, n, s.d.selector())
	if s.cur.Len() >= jsonBatchLen {
		s.full <- s.cur
		s.cur = <-s.free
	}
	return nil
}

// stop hands over the last batch, waits for the goroutine and returns its
// write error; the dumper's output is then the caller's again.
func (s *jsonStream) stop() error {
	if s.cur.Len() > 0 {
		s.full <- s.cur
	}
	close(s.full)
	<-s.done
	return s.err
}
