package main

import (
	"bufio"
	"fmt"
	"runtime"
	"sync"

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
		Short: "Print the decoded messages of a capture",
		Long: `Decodes every SystemSockets message of a pcap or pcapng capture (a file, or
- for standard input) and prints one line per message: number, time since
the first message, connection, direction, message name (with * when its
enum was read widened) and a summary. -V adds the field tree with each
field's bit offset, bit length and Wireshark-style bit string, after the
message's bytes as one hex string (paste it into usmnscope bits); -x prints
each message's bytes as hex and ASCII (like tshark -x); --json prints NDJSON
records (outputs.md), the bytes in "hex".

A filter selects messages: ==, !=, ~ (substring), <, <=, >, >= over the
fields dir, msg, listener, id (listener.id), server_id, client_id, severity
(note<warn<error), conn, n, len, widened, mode and group, combined with &&,
|| and ! and parentheses. A bare word matches the message name. With payload
schemas (--schema, schema.md), payload_message, payload_method and every
payload.<field> (payload.text ~ "hi", payload.items[].amount > 1) too.`,
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
	f.BoolVar(&o.json, "json", false, "print one JSON record per message (NDJSON, outputs.md)")
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
	next   int      // next message number to print
	rec    []byte   // --json: the records being written, reused
	slices [][]byte // --json: each encoding goroutine's records, reused
}

// upTo prints messages next..n. A write error (a closed pipe) stops it.
func (d *dumper) upTo(dc *session.Index, n int) error {
	if d.o.json {
		return d.jsonUpTo(dc, n)
	}
	for ; d.next <= n; d.next++ {
		m := dc.Message(d.next)
		if m == nil {
			continue
		}
		if d.format.start.IsZero() {
			if first := dc.Message(1); first != nil {
				d.format.start = first.Time
			}
		}
		if !d.f.Match(m) {
			continue
		}
		if err := d.print(dc, m); err != nil {
			return err
		}
	}
	return nil
}

// jsonUpTo is upTo for --json (issue 7: a million records in seconds).
// Each message is decoded once, with its spans, and the filter sees that
// decoding (filters read no field spans). A long run of settled messages
// is cut into contiguous slices that AppendJSONRange encodes on all cores
// at once (it only takes the read lock) into reused buffers, which are then
// written in order through the big output buffer, so the output is the
// same as encoding one message after the other.
func (d *dumper) jsonUpTo(dc *session.Index, n int) error {
	workers := runtime.GOMAXPROCS(0)
	for d.next <= n {
		todo := n - d.next + 1
		w := min(workers, todo/jsonSliceMin)
		if w < 2 {
			to := min(n, d.next+jsonSliceMax-1)
			d.rec = dc.AppendJSONRange(d.rec[:0], d.next, to, d.selector())
			d.next = to + 1
			if _, err := d.out.Write(d.rec); err != nil {
				return err
			}
			continue
		}
		for len(d.slices) < w {
			d.slices = append(d.slices, nil)
		}
		per := min(todo, w*jsonSliceMax) / w
		sel := d.selector()
		var wg sync.WaitGroup
		for i := range w {
			from := d.next + i*per
			wg.Go(func() { d.slices[i] = dc.AppendJSONRange(d.slices[i][:0], from, from+per-1, sel) })
		}
		wg.Wait()
		d.next += w * per
		for _, b := range d.slices[:w] {
			if _, err := d.out.Write(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// selector is the dump's filter as a session.Selector: nil without one, so
// that an unfiltered dump asks nothing of each message's head.
func (d *dumper) selector() session.Selector {
	if d.f == nil {
		return nil
	}
	return d.f
}

// The messages one Index.AppendJSONRange call encodes: at least
// jsonSliceMin, so that a trickle of messages (a live pipe) is not spread
// over goroutines, and at most jsonSliceMax, so that a long run is written
// out as it goes.
const (
	jsonSliceMin = 256
	jsonSliceMax = 4096
)

// jsonPipe runs a --json dumper on its own goroutine, so that on two cores
// re-decoding and encoding the settled messages overlaps with reading and
// decoding the capture (issue 7). The feed only wakes it; it prints as
// many settled messages as there are at each wake-up, in order, so the
// output is the same as printing from the feed (settled messages are final:
// Capture.Settled). Its write error stops the feed at the next event.
type jsonPipe struct {
	d    *dumper
	wake chan struct{} // one pending wake-up at most
	done chan struct{} // closed when the goroutine has stopped
	once sync.Once

	mu  sync.Mutex
	err error
}

func newJSONPipe(d *dumper) *jsonPipe {
	return &jsonPipe{d: d, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// kick is readCapture's per-event hook: it starts the goroutine on the
// first event and wakes it, and returns the goroutine's write error, if any.
func (p *jsonPipe) kick(dc *session.Index) error {
	p.once.Do(func() { go p.run(dc) })
	select {
	case p.wake <- struct{}{}:
	default:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

func (p *jsonPipe) run(dc *session.Index) {
	defer close(p.done)
	for range p.wake {
		if err := p.d.upTo(dc, dc.Settled()); err != nil {
			p.mu.Lock()
			p.err = err
			p.mu.Unlock()
			return
		}
	}
}

// stop waits for the goroutine to print what it was woken for and returns
// its write error; the dumper is then the caller's again.
func (p *jsonPipe) stop() error {
	p.once.Do(func() { close(p.done) })
	close(p.wake)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

func (d *dumper) print(dc *session.Index, m *session.Message) error {
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
	d := &dumper{o: *o, f: flt, out: newOutput(o.IO.out), next: 1}
	each := func(dc *session.Index) error { return d.upTo(dc, dc.Settled()) }
	var pipe *jsonPipe
	if o.json {
		pipe = newJSONPipe(d)
		each = pipe.kick
	}
	dc, err := readCaptureRPC(o.IO, p, set, rp, o.capture, each)
	if pipe != nil {
		if perr := pipe.stop(); err == nil {
			err = perr
		}
	}
	if err == nil {
		err = d.upTo(dc, dc.Len())
	}
	if err == nil {
		err = dumpRPC(d.out, rp, o)
	}
	if err == nil && !o.json && flt == nil {
		err = d.trailer(dc)
	}
	if err == nil && !o.json && flt == nil {
		err = rpcTrailer(d.out, rp)
	}
	if ferr := d.out.Flush(); err == nil {
		err = ferr
	}
	return err
}
