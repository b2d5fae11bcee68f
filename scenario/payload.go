package scenario

import (
	"fmt"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/unturned"
)

// Payload values by name (schema.md, issue 14): an invoke action with
// `message` (and `values`) writes its listener payload with the schema of
// the listener instead of the hex `payload`; a `method` action writes a
// vanilla InvokeMethod whose `index` has a schema. The schemas are the
// files the scenario's `schemas` key names, relative to the scenario file.

// readSchemas parses the files the scenario names into one Set.
func readSchemas(names []string, read func(string) ([]byte, error)) (*schema.Set, error) {
	if len(names) == 0 {
		return nil, nil
	}
	var files []*schema.File
	for _, n := range names {
		b, err := read(n)
		if err != nil {
			return nil, fmt.Errorf("schemas: %w", err)
		}
		f, err := schema.Parse(n, b)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return schema.NewSet(files...)
}

// headerBits is where the payload of msg starts: after an invoke's header
// (wire.md 4.3), or after a vanilla InvokeMethod's index (wire.md 3).
func (pl *player) headerBits(d dissect.Dir, widened bool, msg []byte) (int, error) {
	var dec unturned.Decoded
	unturned.Decode(pl.p, d, unturned.State{Widened: widened, IDBits: pl.idBits, IDKnown: true}, msg, nil, &dec)
	switch dec.Kind {
	case unturned.KindInvokeMessageListener:
		return dec.PayloadBit, nil
	case unturned.KindServerInvokeMethod, unturned.KindClientInvokeMethod:
		return dec.Enum.Bits + pl.p.MethodBits(d), nil
	}
	return 0, fmt.Errorf("payload values: the message decodes as %s", dec.Kind)
}

// withPayload returns msg's first header bits followed by what enc writes.
func withPayload(msg []byte, header int, enc func(w *netpak.Writer) error) ([]byte, error) {
	r := netpak.NewReader(msg)
	w := netpak.NewWriter()
	for pos := 0; pos < header; {
		n := min(32, header-pos)
		w.Bits(r.Bits(n), n)
		pos += n
	}
	if err := enc(w); err != nil {
		return nil, err
	}
	return append([]byte(nil), w.Bytes()...), nil
}

// listenerVersion is the version of listener typ on the side that sends
// in direction d, or a's own version.
func (pl *player) listenerVersion(a *Action, d dissect.Dir, typ string) uint32 {
	if a.Version != nil {
		return *a.Version
	}
	ls := pl.c.ClientLs
	if d == dissect.S2C {
		ls = pl.c.ServerLs
	}
	for _, l := range ls {
		if l.Type == typ {
			return l.Version
		}
	}
	return 0
}

// invokePayload rewrites an invoke written with an empty payload so that
// it carries a's message and values, encoded with the listener's schema;
// without a message it returns msg as it is.
func (pl *player) invokePayload(a *Action, d dissect.Dir, widened bool, msg []byte) ([]byte, error) {
	if a.Message == "" {
		return msg, nil
	}
	typ := a.Listener
	l, _ := pl.schemas.Listener(typ, pl.listenerVersion(a, d, typ))
	if l == nil {
		return nil, fmt.Errorf("message: no schema for listener %q version %d (scenario key schemas)", typ, pl.listenerVersion(a, d, typ))
	}
	h, err := pl.headerBits(d, widened, msg)
	if err != nil {
		return nil, err
	}
	return withPayload(msg, h, func(w *netpak.Writer) error { return l.Encode(w, d, a.Message, a.Values) })
}

// method writes a vanilla InvokeMethod of method a.Index with a.Values as
// its parameters, encoded with the schema's method (schema.md section 2).
func (pl *player) method(a *Action) error {
	d := dirOf(a.From)
	if a.Index == nil {
		return fmt.Errorf("index: missing")
	}
	m := pl.schemas.VanillaMethod(d, int(*a.Index))
	if m == nil {
		return fmt.Errorf("index: no schema for %s InvokeMethod %d (scenario key schemas)", d, *a.Index)
	}
	w := pl.widenedFor(a)
	msg := pl.e.InvokeMethod(d, w, *a.Index, 0, nil)
	h, err := pl.headerBits(d, w, msg)
	if err != nil {
		return err
	}
	msg, err = withPayload(msg, h, func(wr *netpak.Writer) error { return m.Encode(wr, a.Values) })
	if err != nil {
		return err
	}
	return pl.emit(d, msg)
}

// emitInvoke emits an invoke, with a's payload values when it gives them.
func (pl *player) emitInvoke(a *Action, d dissect.Dir, widened bool, msg []byte) error {
	msg, err := pl.invokePayload(a, d, widened, msg)
	if err != nil {
		return err
	}
	return pl.emit(d, msg)
}
