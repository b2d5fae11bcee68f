package pipeline

import (
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/merge"
	"github.com/usmnscope/usmnscope/session"
)

// Options are what one decode is built from (Open): every command turns
// its flags into them, and the tests build their decodes the same way.
// The protocols' configuration (Config: the profile and each protocol's
// table) is the registration's (register.go); the rest is the source.
type Options struct {
	Config
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
	// Arena bounds the message bytes kept in memory (the MaxArena of the
	// profile's [limits]); 0 keeps all.
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
	cfg    Config
	as     map[uint16]Proto
}

// Open builds the decode o asks for: it opens the source with the
// capture options the protocols need (CaptureOptions; for live, with
// the kernel filter of LiveOptions), makes the index under the profile's
// bounds with the schemas (Config.index) and the stream, and makes the
// capture file (or live's --write file) the index's store, so that
// messages lying whole in it are recorded by offset instead of copied.
// --decode-as is read once, here (Config.decodeAs), into the map every
// consumer reads. The caller closes Source.
func Open(o Options) (*Decode, error) {
	as := o.decodeAs()
	var arena int64 = -1
	if o.Live != nil {
		arena = o.Live.Arena
	}
	ix := o.index(arena)
	if o.Stream != nil {
		st := o.Stream(ix)
		if st.Settled != nil || st.Cut {
			// A pipe that pauses: what arrived is shown (issue 24).
			o.quiet = IdleFlush
		}
		ix.SetStream(st)
	}
	src, err := openSource(o, as)
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
	return &Decode{Source: src, Index: ix, cfg: o.Config, as: as}, nil
}

// OpenSource opens only the source of the decode o asks for, with the
// capture options Open would give it: what a decode that makes its own
// indexes (profile infer, which records the capture and decodes it again
// under candidate profiles) reads.
func OpenSource(o Options) (capture.Source, error) {
	return openSource(o, o.decodeAs())
}

func openSource(o Options, as map[uint16]Proto) (capture.Source, error) {
	switch {
	case o.Live != nil:
		return capture.OpenLive(o.liveOptions(as, *o.Live))
	case len(o.Several) > 1:
		return openSeveral(o, o.captureOptions(), o.datagramUnits())
	}
	opts := o.captureOptions()
	opts.Quiet = o.quiet
	if o.Path == "-" {
		return capture.NewReader(o.Stdin, "stdin", opts)
	}
	return capture.Open(o.Path, opts)
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

// withLive sets the host's part of live's capture options from l: the
// snapshot length, promiscuous mode, the --write file and the test's ring.
func withLive(opt *capture.LiveOptions, l Live) {
	if l.SnapLen > 0 {
		opt.SnapLen = l.SnapLen
	}
	opt.Promiscuous = l.Promiscuous
	opt.Write = l.Write
	opt.Ring = l.Ring
}

// liveTCPPorts are the TCP ports besides transport_port whose traffic a
// live capture decodes: those as names a protocol, the hosted protocols'
// and sides' (ULinkRPC's, Config.liveOptions), less those as turns off,
// sorted.
func liveTCPPorts(as map[uint16]Proto, sides []uint16) []uint16 {
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
	for _, port := range sides {
		if p, ok := as[port]; !ok || p != ProtoNone {
			ports = append(ports, port)
		}
	}
	slices.Sort(ports)
	return slices.Compact(ports)
}
