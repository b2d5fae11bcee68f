package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"net/netip"
	"strings"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/render"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// bitsOptions are what a bits command line asks for.
type bitsOptions struct {
	IO      *streams
	profile func() (*unturned.Profile, error)
	schemas func() (*schema.Set, error)

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
			o.profile = profileLoader(cmd)
			o.schemas = schemaLoader(cmd)
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

// parseHex reads hex digits, ignoring spaces, colons, and 0x prefixes, so
// that both `8c 00 00` and `0x8c0000` paste straight in.
func parseHex(args []string) ([]byte, error) {
	var b strings.Builder
	for _, a := range args {
		for _, w := range strings.FieldsFunc(a, func(r rune) bool { return r == ' ' || r == ':' || r == ',' || r == '\t' || r == '\n' || r == '\r' }) {
			w = strings.TrimPrefix(strings.TrimPrefix(w, "0x"), "0X")
			b.WriteString(w)
		}
	}
	s := b.String()
	data, err := hex.DecodeString(s)
	if err != nil {
		if ie, ok := err.(hex.InvalidByteError); ok {
			return nil, fmt.Errorf("bits: %q is not a hex digit", rune(ie))
		}
		return nil, fmt.Errorf("bits: odd number of hex digits (%d)", len(s))
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("bits: no hex bytes given")
	}
	return data, nil
}

func runBits(o *bitsOptions) error {
	s, args := o.IO, o.hex
	var dir dissect.Dir
	switch o.dir {
	case "c2s":
		dir = dissect.C2S
	case "s2c":
		dir = dissect.S2C
	default:
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
	data, err := parseHex(args)
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
	m := session.DecodeOneWith(p, set, dir, o.widened, o.idBits, data)
	if h := widthHint(m, session.DecodeOneWith(p, set, dir, !o.widened, o.idBits, data), o.widened); h != "" {
		fmt.Fprintf(s.err, "usmnscope: bits: hint: %s\n", h)
	}
	out := newOutput(s.out)
	if o.json {
		// A pasted message has no capture around it. The record still
		// follows outputs.md: it is message 1, and its connection is the
		// unspecified address pair, which parses like any other "conn"
		// (a zero Conn would print "invalid AddrPort").
		m.N = 1
		m.Conn = pastedConn
		if err := m.WriteJSON(out); err != nil {
			return err
		}
		return out.Flush()
	}
	render.Bits(out, m, o.idBits)
	return out.Flush()
}

// widthHint says, when the other enum width (wire.md 4.2) explains the
// bytes better, what they decode as under it (issue 16: `bits 51 02` read
// vanilla is a ReadyToConnect, read widened the USMN invoke it was): the
// other width gives a USMN message and the asked one does not, or the asked
// one is widened and gives no known message while vanilla does. A pasted
// message has no handshake to tell the width, so this is a hint on stderr,
// never a change of what was asked.
func widthHint(m, other *session.Message, widened bool) string {
	if hasError(other) || isUSMN(m) {
		return ""
	}
	known := other.Kind != unturned.KindUnknown
	switch {
	case !widened && isUSMN(other):
		return fmt.Sprintf("read widened (--widened: both peers run USMN), these bytes decode as %s; read vanilla they are %s", describe(other), describe(m))
	case widened && m.Kind == unturned.KindUnknown && known:
		return fmt.Sprintf("read vanilla (without --widened), these bytes decode as %s; read widened they are %s", describe(other), describe(m))
	}
	return ""
}

// describe is a message's name with its widened mark and summary, as the
// first lines of bits print it.
func describe(m *session.Message) string {
	if s := render.Summary(m); s != "" {
		return render.MessageName(m) + ": " + s
	}
	return render.MessageName(m)
}

func isUSMN(m *session.Message) bool {
	return m.Kind == unturned.KindInvokeMessageListener || m.Kind == unturned.KindNegotiateListenerDetails
}

func hasError(m *session.Message) bool {
	w, ok := m.Worst()
	return ok && w >= dissect.Error
}

// pastedConn is the "conn" of a bits --json record: 0.0.0.0:0-0.0.0.0:0.
var pastedConn = dissect.Conn{
	Client: netip.AddrPortFrom(netip.IPv4Unspecified(), 0),
	Server: netip.AddrPortFrom(netip.IPv4Unspecified(), 0),
}
