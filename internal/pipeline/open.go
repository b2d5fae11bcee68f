package pipeline

import (
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/merge"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// Options are what one decode is built from (Open): every command turns
// its flags into them, and the tests build their decodes the same way.
type Options struct {
	// Profile is the profile decoded under (wire.md 6), its [limits]
	// final; nil is unturned.Default().
	Profile *unturned.Profile
	// Schemas decode payloads (schema.md); nil: none.
	Schemas *schema.Set
	// RPC decodes ULinkRPC (ulinkrpc.md); nil: not decoded (profile
	// infer), such connections get one note each.
	RPC *RPC
	// Path is the capture file, or "-" for Stdin. Unused with Live.
	Path string
	// Several, with more than one capture, replaces Path: the captures
	// are read as one (several.go), their records numbered once.
	Several []Capture
	Stdin   io.Reader
	// Live, when not nil, captures on a network interface instead.
	Live *Live
	// Stream, when not nil, gives the session.Stream of the new Index: a
	// streaming decode (dump, tables), which keeps no per-message history.
	Stream func(*session.Index) session.Stream
	// InMemory keeps every message's bytes in memory: the capture file is
	// not made the index's store (a test whose UI model reads bytes
	// without running commands).
	InMemory bool

	quiet time.Duration // capture.Options.Quiet: set by Open for a streaming decode
}

// Live is a live capture's part of Options.
type Live struct {
	Interface   string
	SnapLen     int // 0: capture's default
	Promiscuous bool
	Write       string // also save every packet to this pcapng file
	// AnyPort keeps all TCP and UDP in the kernel filter and probes every
	// UDP flow for a KCP handshake, as a file's decode does.
	AnyPort bool
	// Arena bounds the message bytes kept in memory (unturned.Limits'
	// MaxArena); 0 keeps all.
	Arena int64
	// Ring replaces the packet socket (capture.LiveOptions.Ring): a test
	// hook feeding packets through live's saving to Write and its offsets.
	Ring capture.Ring
}

// Decode is one decode as Open builds it: the source, the protocols'
// configuration and the index they feed.
type Decode struct {
	Source capture.Source
	Index  *session.Index
	RPC    *RPC // nil: ULinkRPC is not decoded
	as     map[uint16]Proto
}

// Open builds the decode o asks for: it opens the source with the
// capture options the protocols need (CaptureOptions; for live, with
// the kernel filter of LiveOptions), makes the index under the profile's
// bounds with the schemas and the stream, and makes the capture file (or
// live's --write file) the index's store, so that messages lying whole in
// it are recorded by offset instead of copied. --decode-as is read once,
// here, from the profile (Profile.DecodeAs), into the map every consumer
// reads. The caller closes Source.
func Open(o Options) (*Decode, error) {
	p := o.Profile
	if p == nil {
		p = unturned.Default()
	}
	as := decodeAsMap(p.DecodeAs)
	var arena int64 = -1
	if o.Live != nil {
		arena = o.Live.Arena
	}
	ix := NewIndex(p, arena)
	ix.SetSchemas(o.Schemas)
	if o.Stream != nil {
		st := o.Stream(ix)
		if st.Settled != nil || st.Cut {
			// A pipe that pauses: what arrived is shown (issue 24).
			o.quiet = IdleFlush
		}
		ix.SetStream(st)
	}
	src, err := openSource(o, p, as)
	if err != nil {
		return nil, err
	}
	switch {
	case len(o.Several) > 1:
		attachSeveral(ix, src.(*merge.Source))
	case o.Live != nil:
		if s, ok := src.(interface{ Sync() error }); ok && o.Live.Write != "" {
			attachStore(ix, o.Live.Write, s.Sync)
		}
	case o.Path != "-" && !o.InMemory:
		attachStore(ix, o.Path, nil)
	}
	return &Decode{Source: src, Index: ix, RPC: o.RPC, as: as}, nil
}

// OpenSource opens only the source of the decode o asks for, with the
// capture options Open would give it: what a decode that makes its own
// indexes (profile infer, which records the capture and decodes it again
// under candidate profiles) reads.
func OpenSource(o Options) (capture.Source, error) {
	p := o.Profile
	if p == nil {
		p = unturned.Default()
	}
	return openSource(o, p, decodeAsMap(p.DecodeAs))
}

func openSource(o Options, p *unturned.Profile, as map[uint16]Proto) (capture.Source, error) {
	switch {
	case o.Live != nil:
		return capture.OpenLive(liveOptions(p, o.RPC, as, *o.Live))
	case len(o.Several) > 1:
		return openSeveral(o, captureOptions(p, o.RPC, as), datagramUnits(o.RPC))
	}
	opts := captureOptions(p, o.RPC, as)
	opts.Quiet = o.quiet
	if o.Path == "-" {
		return capture.NewReader(o.Stdin, "stdin", opts)
	}
	return capture.Open(o.Path, opts)
}

// Feed reads the source into the index (FeedRPC), progress as there.
func (d *Decode) Feed(progress func(capture.Stats)) error {
	return feed(d.Source, d.Index, d.RPC, d.as, progress)
}

// NewIndex returns the index of a decode under p (nil: the default),
// bounded by p's [limits]; arena ≥ 0 bounds the message bytes kept in
// memory (live), arena < 0 keeps the profile's bound.
func NewIndex(p *unturned.Profile, arena int64) *session.Index {
	if p == nil {
		p = unturned.Default()
	}
	lim := p.Bounds.Limits()
	if arena >= 0 {
		lim.MaxArena = arena
	}
	return session.NewIndexLimits(p, lim)
}

// attachStore makes the file at path the store of ix (capture.OpenStore:
// a regular file only), closed when ix is garbage.
func attachStore(ix *session.Index, path string, sync func() error) {
	s := capture.OpenStore(path, sync)
	if s == nil {
		return
	}
	ix.SetStore(s)
	runtime.AddCleanup(ix, func(s *capture.FileStore) { s.Close() }, s)
}

// CaptureOptions are the capture options of a decode under p (nil: the
// default) with ULinkRPC decoded by rp (nil: not decoded): the TCP port of
// SystemSockets traffic (wire.md 6 "transport_port"), the A2S query port
// (wire.md 2), the capture bounds of [limits], and for ULinkRPC the UDP
// ports of KCP (ulinkrpc.md 2.3) and the probe of the first datagrams of
// UDP flows on other ports (KCP on any port).
func CaptureOptions(p *unturned.Profile, rp *RPC) capture.Options {
	if p == nil {
		p = unturned.Default()
	}
	return captureOptions(p, rp, decodeAsMap(p.DecodeAs))
}

func captureOptions(p *unturned.Profile, rp *RPC, as map[uint16]Proto) capture.Options {
	o := BoundOptions(capture.Options{TransportPort: p.TransportPort, QueryPort: p.QueryPort}, p.Bounds)
	if rp != nil {
		o.DatagramPorts = rp.DatagramPorts(p.DecodeAs)
		o.ProbeDatagrams = KCPProbeDatagrams
	}
	o.DatagramPorts = hostedDatagramPorts(o.DatagramPorts)
	return o
}

// hostedDatagramPorts adds the datagram ports of the hosted protocols
// (register.go) to ports, in its free slots.
func hostedDatagramPorts(ports [4]uint16) [4]uint16 {
	_, hosted := registered(false)
	for _, h := range hosted {
		for _, port := range h.DatagramPorts {
			if slices.Contains(ports[:], port) {
				continue
			}
			if i := slices.Index(ports[:], 0); i >= 0 {
				ports[i] = port
			}
		}
	}
	return ports
}

// BoundOptions adds the capture layer's bounds b to capture options o.
func BoundOptions(o capture.Options, b unturned.Bounds) capture.Options {
	o.MaxBufferedPerFlow = int(b.MaxFlowBuffer)
	o.MaxBufferedTotal = int(b.MaxTotalBuffer)
	o.MaxFlows = b.MaxFlows
	o.MaxFragments = b.MaxFragments
	o.MaxFragmentBytes = int(b.MaxFragmentBytes)
	o.MaxFragmentDatagrams = b.MaxFragmentDatagrams
	o.MaxInterfaces = b.MaxInterfaces
	o.MaxNotes = b.MaxNotes
	o.MaxDecompressed = int64(b.MaxDecompressed)
	return o
}

// LiveOptions are the capture options of a live capture under p (nil:
// the default) decoding ULinkRPC with rp: the profile's ports and bounds;
// TCP kept on the ports --decode-as names and on ULinkRPC's; KCP's UDP
// datagrams on ULinkRPC's ports (ulinkrpc.md 2.3), which the kernel filter
// then keeps too. l.AnyPort keeps all TCP and probes every other UDP flow
// for a KCP handshake, as a file's decode does: the kernel filter keeps
// all TCP and UDP.
func LiveOptions(p *unturned.Profile, rp *RPC, l Live) capture.LiveOptions {
	if p == nil {
		p = unturned.Default()
	}
	return liveOptions(p, rp, decodeAsMap(p.DecodeAs), l)
}

func liveOptions(p *unturned.Profile, rp *RPC, as map[uint16]Proto, l Live) capture.LiveOptions {
	opt := capture.DefaultLiveOptions(l.Interface)
	opt.Options = BoundOptions(capture.Options{TransportPort: p.TransportPort, QueryPort: p.QueryPort}, p.Bounds)
	opt.TCPPorts = liveTCPPorts(as, rp)
	opt.DatagramPorts = hostedDatagramPorts(rp.DatagramPorts(p.DecodeAs))
	if l.AnyPort {
		opt.AllTCP = true
		opt.ProbeDatagrams = KCPProbeDatagrams
	}
	if l.SnapLen > 0 {
		opt.SnapLen = l.SnapLen
	}
	opt.Promiscuous = l.Promiscuous
	opt.Write = l.Write
	opt.Ring = l.Ring
	return opt
}

// liveTCPPorts are the TCP ports besides transport_port whose traffic a
// live capture decodes: those as names a protocol and ULinkRPC's
// (rp.Ports, by default DefaultRPCPorts), less those as turns off,
// sorted.
func liveTCPPorts(as map[uint16]Proto, rp *RPC) []uint16 {
	var ports []uint16
	for port, p := range as {
		if p != ProtoNone {
			ports = append(ports, port)
		}
	}
	_, hosted := registered(false)
	for _, h := range hosted {
		for _, port := range h.Ports {
			if p, ok := as[port]; !ok || p != ProtoNone {
				ports = append(ports, port)
			}
		}
	}
	rpcPorts := DefaultRPCPorts
	if rp != nil && rp.Ports != nil {
		rpcPorts = rp.Ports
	}
	for _, port := range rpcPorts {
		if p, ok := as[port]; !ok || p != ProtoNone {
			ports = append(ports, port)
		}
	}
	slices.Sort(ports)
	return slices.Compact(ports)
}
