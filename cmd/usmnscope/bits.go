package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/render"
	"github.com/usmnscope/usmnscope/session"
)

// bitsOptions are what a bits command line asks for.
type bitsOptions struct {
	IO   *streams
	load pipeline.Loaders // the profile and schemas decoded under

	hex     []string // HEX: the message's bytes, or "-" for standard input
	dir     string
	widened bool
	idBits  int
	json    bool
}

// newCmdBits returns the bits command; runF, when not nil, runs instead of
// runBits with the parsed options (tests).
func newCmdBits(s *streams, runF func(*bitsOptions) error) *cobra.Command {
	o := &bitsOptions{IO: s}
	cmd := &cobra.Command{
		Use:   "bits [--dir c2s|s2c] [--widened] HEX",
		Short: "Decode one message given as hex, bit by bit",
		Long: `Decodes one SystemSockets message (without its 2-byte length header) pasted
from a log and prints every field with its bit offset, bit length, its bits
(most significant first) and its value, then a bit-level hexdump in which
each bit carries the letter of the field it belongs to (NetPak is LSB
first: stream bit k is bit k mod 8 of byte k/8, drawn at column
7-(k mod 8); docs/protocol.md). Spaces,
colons and a 0x prefix in the hex are ignored; HEX "-" reads it from
standard input. --json prints one dump
record (docs/json.md). A pasted message has no handshake to tell its enum
width (docs/protocol.md, "Widened enums"): when the other width decodes it as a USMN message, a
hint on standard error says so.`,
		Example: `  usmnscope bits --dir s2c 8c 00 00 62 79 65
  usmnscope bits --dir s2c 6a 70 00 33 2e 32 36 2e 33 2e 34
  usmnscope bits --dir c2s --widened --id-bits 2 --json 31 00
  pbpaste | usmnscope bits --dir s2c -`,
		Args: argNames("HEX..."),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.hex = args
			o.load = pipeline.Loaders{Profile: profileLoader(cmd), Schemas: schemaLoader(cmd)}
			if runF != nil {
				return runF(o)
			}
			return runBits(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.dir, "dir", "c2s", "direction: c2s (client to server) or s2c")
	f.BoolVar(&o.widened, "widened", false, "read the message enum widened (both peers run USMN; docs/protocol.md)")
	f.IntVar(&o.idBits, "id-bits", 0, "Serverside_ID_Bit_Count in force (docs/protocol.md)")
	f.BoolVar(&o.json, "json", false, "print one JSON dump record (docs/json.md)")
	_ = cmd.RegisterFlagCompletionFunc("dir", cobra.FixedCompletions([]string{"c2s", "s2c"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runBits(o *bitsOptions) error {
	s, args := o.IO, o.hex
	dir, ok := dissect.ParseDir(o.dir)
	if !ok {
		return usageError{fmt.Errorf("bits: --dir %q: want c2s or s2c", o.dir)}
	}
	if o.idBits < 0 || o.idBits > 32 {
		return usageError{fmt.Errorf("bits: --id-bits %d: want 0..32", o.idBits)}
	}
	if len(args) == 1 && args[0] == "-" {
		in, err := io.ReadAll(io.LimitReader(s.in, 1<<20))
		if err != nil {
			return fmt.Errorf("bits: stdin: %w", err)
		}
		args = []string{string(in)}
	}
	data, err := render.ParseHex(args)
	if err != nil {
		return usageError{err}
	}
	cfg, err := o.load.Early()
	if err != nil {
		return err
	}
	paste := render.Pasted{Paste: session.Paste{Profile: cfg.Profile, Set: cfg.Schemas, Dir: dir, IDBits: o.idBits}, Widened: o.widened}
	m, hint := paste.Decode(data)
	if hint != "" {
		fmt.Fprintf(s.err, "usmnscope: bits: hint: %s\n", hint)
	}
	out := newOutput(s.out)
	if err := paste.Write(out, m, o.json); err != nil {
		return err
	}
	return out.Flush()
}
