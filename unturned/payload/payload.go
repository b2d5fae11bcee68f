package payload

import (
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/unturned"
)

// Kind reports the kinds a schema may decode the payload of.
func Kind(k unturned.Kind) bool {
	return k == unturned.KindInvokeMessageListener || k == unturned.KindServerInvokeMethod || k == unturned.KindClientInvokeMethod
}

// Listener is the listener an invoke's payload belongs to, as its host
// knows it: its type and version (Known false: not known).
type Listener struct {
	Type    string
	Version uint32
	Known   bool
}

// Result is a payload Decode decoded: the schema's fields and findings,
// the message and method it names, the row summary's Title, and Raw, the
// name of the undecoded span at the end of a message's fields that the
// schema's fields replace ("payload" of a USMN invoke, "parameters" of a
// vanilla InvokeMethod).
type Result struct {
	schema.Result
	Title string
	Raw   string
}

// Scratch is what Decode reuses from message to message: the reader and
// the payload fields (a Result's fields live in it until the next Decode).
type Scratch struct {
	r      netpak.Reader
	fields []netpak.Span
}

// Decode decodes the payload of data, decoded as d in direction dir under
// profile p, with set, when a schema applies; l is the listener of a USMN
// invoke. notes are the set's notes on the listener's version, said
// whether or not a schema applies; ok false: none does. sc nil: nothing
// reused.
func Decode(set *schema.Set, data []byte, dir dissect.Dir, d *unturned.Decoded, p *unturned.Profile, l Listener, sc *Scratch) (res Result, notes []dissect.Finding, ok bool) {
	if set == nil || len(data) == 0 {
		return res, nil, false
	}
	if sc == nil {
		sc = &Scratch{}
	}
	r := &sc.r
	r.Reset(data)
	switch d.Kind {
	case unturned.KindInvokeMessageListener:
		if !l.Known || d.PayloadBit <= 0 {
			return res, nil, false
		}
		var sl *schema.Listener
		sl, notes = set.Listener(l.Type, l.Version)
		if sl == nil {
			return res, notes, false
		}
		r.Seek(d.PayloadBit)
		res.Result = sl.DecodeBuf(dir, r, sc.fields)
		res.Raw = "payload"
		res.Title = title(sl.Name(), res.Result)
		sc.fields = res.Fields
		return res, notes, true
	case unturned.KindServerInvokeMethod, unturned.KindClientInvokeMethod:
		at, n := d.Enum.Bits, p.MethodBits(dir)
		if at+n > 8*len(data) {
			return res, nil, false
		}
		me := set.VanillaMethod(dir, int(d.Vanilla.Value))
		if me == nil {
			return res, nil, false
		}
		r.Seek(at + n)
		res.Result = me.DecodeBuf(r, at, sc.fields)
		res.Raw = "parameters"
		res.Title = title("", res.Result)
		sc.fields = res.Fields
		return res, nil, true
	}
	return res, nil, false
}

// title is the name a row summary starts with: `Chat.Say` for a listener
// message, `Chat.InvokeMethod.ReceiveEmote` for its RPC, the method name
// for a vanilla InvokeMethod.
func title(listener string, res schema.Result) string {
	t := listener
	for _, s := range [2]string{res.Message, res.Method} {
		switch {
		case s == "":
		case t == "":
			t = s
		default:
			t += "." + s
		}
	}
	return t
}
