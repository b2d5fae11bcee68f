package main

import (
	"bufio"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/decode"
)

func init() { subcommands = append(subcommands, newDumpCmd) }

type dumpOptions struct {
	verbose bool
	json    bool
	filter  string
}

func newDumpCmd(s *streams) *cobra.Command {
	var o dumpOptions
	cmd := &cobra.Command{
		Use:   "dump CAPTURE",
		Short: "Print the decoded messages of a capture",
		Long: `Decodes every SystemSockets message of a pcap or pcapng capture (a file, or
- for standard input) and prints one line per message: number, time since
the first message, connection, direction, message name (with * when its
enum was read widened) and a summary. -V adds the field tree with each
field's bit offset, bit length and Wireshark-style bit string; --json prints
NDJSON records (outputs.md).

A filter selects messages: ==, !=, ~ (substring), <, <=, >, >= over the
fields dir, msg, listener, id (listener.id), server_id, client_id, severity
(note<warn<error), conn, n, len, widened, mode and group, combined with &&,
|| and ! and parentheses. A bare word matches the message name.`,
		Example: `  usmnscope dump capture.pcapng
  usmnscope dump -V --filter 'msg==InvokeMessageListener && listener~Chat' capture.pcapng
  usmnscope dump --json --filter 'severity>=warn' capture.pcapng | jq .expert
  tcpdump -U -w - port 27016 | usmnscope dump -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runDump(cmd, s, args[0], o) },
	}
	f := cmd.Flags()
	f.BoolVarP(&o.verbose, "verbose", "V", false, "print the field tree of each message with bit strings")
	f.BoolVar(&o.json, "json", false, "print one JSON record per message (NDJSON, outputs.md)")
	f.StringVar(&o.filter, "filter", "", "print only the messages matching `EXPR` (see above)")
	return cmd
}

// dumper prints messages as they settle, so that a long capture or a pipe
// shows output before the end, and `dump | head` stops reading early.
type dumper struct {
	o      dumpOptions
	f      *decode.Filter
	out    *bufio.Writer
	format lineFormat
	next   int // next message number to print
}

// upTo prints messages next..n. A write error (a closed pipe) stops it.
func (d *dumper) upTo(dc *decode.Capture, n int) error {
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

func (d *dumper) print(dc *decode.Capture, m *decode.Message) error {
	if d.o.json || d.o.verbose {
		if full := dc.Detail(m.N); full != nil {
			m = full
		}
	}
	switch {
	case d.o.json:
		return m.WriteJSON(d.out)
	case d.o.verbose:
		_, err := d.out.WriteString(d.format.tree(m))
		return err
	default:
		_, err := d.out.WriteString(d.format.line(m) + "\n")
		return err
	}
}

// trailer prints the connection and capture findings after the messages
// of a text dump: what went wrong outside any one message (gaps, resync,
// non-game traffic).
func (d *dumper) trailer(dc *decode.Capture) error {
	for _, ci := range dc.Connections() {
		for _, f := range ci.Findings {
			if _, err := fmt.Fprintf(d.out, "# %s: %s %s: %s\n", ci.Conn, f.Severity, f.Group, safe(f.Text)); err != nil {
				return err
			}
		}
	}
	for _, f := range dc.Findings() {
		if _, err := fmt.Fprintf(d.out, "# capture: %s %s: %s\n", f.Severity, f.Group, safe(f.Text)); err != nil {
			return err
		}
	}
	return nil
}

func runDump(cmd *cobra.Command, s *streams, path string, o dumpOptions) error {
	if o.json && o.verbose {
		return usageError{fmt.Errorf("dump: --json and -V exclude each other")}
	}
	flt, err := decode.ParseFilter(o.filter)
	if err != nil {
		return usageError{err}
	}
	d := &dumper{o: o, f: flt, out: newOutput(s.out), next: 1}
	dc, err := readCapture(cmd, s, path, func(dc *decode.Capture) error { return d.upTo(dc, dc.Settled()) })
	if err == nil {
		err = d.upTo(dc, dc.Len())
	}
	if err == nil && !o.json && flt == nil {
		err = d.trailer(dc)
	}
	if ferr := d.out.Flush(); err == nil {
		err = ferr
	}
	return err
}
