package pipeline

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/config"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/merge"
	"github.com/usmnscope/usmnscope/rpc"
	rpcfeed "github.com/usmnscope/usmnscope/rpc/feed"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned"
	utfeed "github.com/usmnscope/usmnscope/unturned/feed"
	"github.com/usmnscope/usmnscope/unturned/infer"
)

// register.go is the one file of the package that names the protocols
// (issue 23, TestPipelineNamesProtocols): their registration (init), the
// names the pipeline's callers keep for ULinkRPC's side and the profile's
// [limits], the protocols' configuration (Loaders, Config: what load.go
// loads and open.go builds a decode under), and what the neutral files
// ask of the protocols through functions named here: the datagram units
// of several captures, a read's ULinkRPC sessions and live's count of
// their records, and Unturned's profile search over the host's decode
// (profile infer and the hint).

// The one registration of the protocols (issue 23): every decode reads the
// registry (decode.Protocols) for the ports it claims, the content
// detectors it runs on connections on no named port and the constructor
// of a connection's state, and Export for how a selection of its
// connections is written back (decode.Export). A test may register a protocol of its own
// (decode.Register) and a decode then finds, routes, hosts and shows it
// with no other change.
//
//   - Unturned (SystemSockets, wire.md): its port is the profile's
//     transport_port, its detector a GetWorkshopFiles; the host decodes it
//     natively (New nil) this round. Its "msg" names are unturned.Kind's;
//     its connections are written back as SystemSockets (unturned.Export).
//   - ULinkRPC (ulinkrpc.md): its ports the default profile's [ulinkrpc]
//     ports (a decode's RPC options may replace them), its detector a
//     length-prefixed frame or a WebSocket upgrade carrying one; its
//     connections are rpc sessions made with the decode's RPC options
//     (rpc/feed's RPC.Start: rpc.Protocol), so a feed without them does
//     not decode it.
//     Its "msg" names are the frame types', and Encrypted (outputs.md
//     "ULinkRPC records"); its connections are written back by their
//     transport (rpcfeed.Export).
func init() {
	decode.Register(&decode.Protocol{Name: ProtoUnturned.String(), Need: 2 + gwfLen, Detect: detectGetWorkshopFiles,
		Names: unturnedNames(), Export: unturned.Export})
	decode.Register(&decode.Protocol{Name: rpc.Name, Ports: DefaultRPCPorts, DatagramPorts: DefaultRPCPorts,
		Need: rpcfeed.Need, Detect: rpcfeed.Detect, Names: rpcNames(), Export: rpcfeed.Export})
}

// The ULinkRPC side of a feed lives with its protocol (rpc/feed); these
// names keep the pipeline's callers (the commands, the TUI, the tests) as
// they were.
type RPC = rpcfeed.RPC

const (
	// ContractsFlag is the flag naming the folder of C# contracts
	// (rpcfeed.ContractsFlag).
	ContractsFlag = rpcfeed.ContractsFlag
	// KCPProbeDatagrams is rpcfeed.ProbeDatagrams.
	KCPProbeDatagrams = rpcfeed.ProbeDatagrams
)

// DefaultRPCPorts are rpcfeed.DefaultPorts.
var DefaultRPCPorts = rpcfeed.DefaultPorts

// NewRPC is rpcfeed.New.
func NewRPC(cfg rpc.Config) *RPC { return rpcfeed.New(cfg) }

// RPCOf is rpcfeed.Of.
func RPCOf(r unturned.RPCProfile, c *ulinkrpc.Contracts) (*RPC, error) { return rpcfeed.Of(r, c) }

// RPCWith is rpcfeed.With.
func RPCWith(r unturned.RPCProfile, dir string) (*RPC, error) { return rpcfeed.With(r, dir) }

// RPCBounds is rpcfeed.Bounds.
func RPCBounds(cfg *rpc.Config, b unturned.Bounds) { rpcfeed.Bounds(cfg, b) }

// ReadContracts is rpcfeed.ReadContracts.
func ReadContracts(dir string) (*ulinkrpc.Contracts, error) { return rpcfeed.ReadContracts(dir) }

// The protocols' configuration: one profile (the game's constants,
// [limits], [ulinkrpc] and --decode-as), the payload schemas and one
// typed table per side (ULinkRPC's decoding). load.go runs the loaders in
// the order steps gives; open.go builds a decode under a Config through
// its methods here (decodeAs, index, captureOptions, liveOptions,
// datagramUnits), so neither names a protocol's type.

// Loaders are a command's loaders of the protocols' configuration (Load,
// load.go): its profile's, its payload schemas' (LoadSchemas) and its
// ULinkRPC side's (LoadRPC). A nil Profile loads the default profile.
type Loaders struct {
	Profile func() (*unturned.Profile, error)
	Schemas func() (*schema.Set, error)
	RPC     func() (*RPC, error)
}

// Config is the protocols' configuration one decode runs under, as
// Loaders load it. Options carry it (Config.Options).
type Config struct {
	// Profile is the profile decoded under (wire.md 6), its [limits]
	// final; nil is unturned.Default().
	Profile *unturned.Profile
	// Schemas decode payloads (schema.md); nil: none.
	Schemas *schema.Set
	// RPC decodes ULinkRPC (ulinkrpc.md); nil: not decoded (profile
	// infer), such connections get one note each.
	RPC *RPC
}

// Rest completes what Early (load.go) loaded into c: its ULinkRPC side.
func (l Loaders) Rest(c *Config) error {
	var err error
	c.RPC, err = LoadRPC(l.RPC)
	return err
}

func (l Loaders) profile() (*unturned.Profile, error) {
	if l.Profile == nil {
		return unturned.Default(), nil
	}
	return l.Profile()
}

// LoadRPC runs a ULinkRPC loader; without one (a test's options)
// ULinkRPC is decoded with no key and no contracts.
func LoadRPC(load func() (*RPC, error)) (*RPC, error) {
	if load == nil {
		return NewRPC(rpc.Config{}), nil
	}
	return load()
}

// LoadProfile is the profile of the file at path (ReadProfile; "" is the
// default profile of wire.md 6), with the capture bounds the file leaves
// unset given capture's defaults (CaptureBounds), which profile show
// prints. A file that cannot be read or parsed is an error that names the
// file and the key.
func LoadProfile(path string) (*unturned.Profile, error) {
	p := unturned.Default()
	if path != "" {
		data, err := config.ReadProfile(path)
		if err != nil {
			return nil, err
		}
		if p, err = unturned.ParseProfile(path, data); err != nil {
			return nil, err
		}
	}
	p.Bounds = CaptureBounds(p.Bounds)
	return p, nil
}

// RPCFor is the ULinkRPC decoding under p: its [ulinkrpc] table and
// [limits], with the names of the contracts folder dir, or without one
// those of the schemas' [[ulinkrpc.service]] and [[ulinkrpc.type]] tables
// (schema.md 4). Both given, dir wins, with a note on warn.
func RPCFor(p *unturned.Profile, set *schema.Set, dir string, warn io.Writer) (*RPC, error) {
	named := rpc.SchemaContracts(set)
	if dir != "" && named != nil {
		fmt.Fprintf(warn, "usmnscope: note: --%s %s names the ULinkRPC services and types; the [ulinkrpc] tables of the schema files are not used\n",
			ContractsFlag, termsafe.Escape(dir))
	}
	rp, err := RPCWith(p.ULinkRPC, dir)
	if err == nil {
		RPCBounds(&rp.Config, p.Bounds)
	}
	if err == nil && dir == "" && named != nil {
		rp.Config.Contracts = named
	}
	return rp, err
}

// profile is c's profile, the default without one (orDefault).
func (c Config) profile() *unturned.Profile { return orDefault(c.Profile) }

// orDefault is p, or without one the default profile (wire.md 6): the one
// rule of every decode given no profile.
func orDefault(p *unturned.Profile) *unturned.Profile {
	if p == nil {
		return unturned.Default()
	}
	return p
}

// profileOptions are the capture options a profile sets: the TCP port of
// SystemSockets traffic (wire.md 6 "transport_port"), the A2S query port
// (wire.md 2) and the capture bounds of [limits].
func profileOptions(p *unturned.Profile) capture.Options {
	return BoundOptions(capture.Options{TransportPort: p.TransportPort, QueryPort: p.QueryPort}, p.Bounds)
}

// decodeAs is c's --decode-as (Profile.DecodeAs) as the map every
// consumer of a decode reads; Open reads it once.
func (c Config) decodeAs() map[uint16]Proto { return decodeAsMap(c.profile().DecodeAs) }

// index is the index of a decode under c: bounded by the profile
// (NewIndex, arena as there), decoding payloads with the schemas.
func (c Config) index(arena int64) *session.Index {
	ix := NewIndex(c.Profile, arena)
	ix.SetSchemas(c.Schemas)
	return ix
}

// NewIndex returns the index of a decode under p (nil: the default),
// bounded by p's [limits]; arena ≥ 0 bounds the message bytes kept in
// memory (live), arena < 0 keeps the profile's bound.
func NewIndex(p *unturned.Profile, arena int64) *session.Index {
	p = orDefault(p)
	lim := p.Bounds.Limits()
	if arena >= 0 {
		lim.MaxArena = arena
	}
	return session.NewIndexLimits(p, lim)
}

// Feed reads the source into the index (FeedRPC), progress as there.
func (d *Decode) Feed(progress func(capture.Stats)) error {
	return feed(d.Source, d.Index, d.cfg.RPC, d.as, progress)
}

// CaptureOptions are the capture options of a decode under p (nil: the
// default) with ULinkRPC decoded by rp (nil: not decoded): the TCP port of
// SystemSockets traffic (wire.md 6 "transport_port"), the A2S query port
// (wire.md 2), the capture bounds of [limits], and for ULinkRPC the UDP
// ports of KCP (ulinkrpc.md 2.3) and the probe of the first datagrams of
// UDP flows on other ports (KCP on any port).
func CaptureOptions(p *unturned.Profile, rp *RPC) capture.Options {
	return Config{Profile: p, RPC: rp}.captureOptions()
}

func (c Config) captureOptions() capture.Options {
	p := c.profile()
	o := profileOptions(p)
	if c.RPC != nil {
		o.DatagramPorts = c.RPC.DatagramPorts(p.DecodeAs)
		o.ProbeDatagrams = KCPProbeDatagrams
	}
	o.DatagramPorts = hostedDatagramPorts(o.DatagramPorts)
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
	c := Config{Profile: p, RPC: rp}
	return c.liveOptions(c.decodeAs(), l)
}

// liveOptions are LiveOptions under c with --decode-as read into as;
// ULinkRPC's TCP ports are rp.Ports, by default DefaultRPCPorts.
func (c Config) liveOptions(as map[uint16]Proto, l Live) capture.LiveOptions {
	p := c.profile()
	opt := capture.DefaultLiveOptions(l.Interface)
	opt.Options = profileOptions(p)
	rpcPorts := DefaultRPCPorts
	if c.RPC != nil && c.RPC.Ports != nil {
		rpcPorts = c.RPC.Ports
	}
	opt.TCPPorts = liveTCPPorts(as, rpcPorts)
	opt.DatagramPorts = hostedDatagramPorts(c.RPC.DatagramPorts(p.DecodeAs))
	if l.AnyPort {
		opt.AllTCP = true
		opt.ProbeDatagrams = KCPProbeDatagrams
	}
	withLive(&opt, l)
	return opt
}

// The profile's [limits] (SECURITY.md "Bounds") joined to capture's:
// unturned states the decoder's share and leaves the capture layer's zero,
// "capture's default", since it does not import capture; here the two
// meet.

// DefaultBounds returns the default [limits] of a profile with every bound
// stated: the decoder's share as unturned states it, the capture layer's
// share as capture states it (CaptureBounds).
func DefaultBounds() unturned.Bounds { return CaptureBounds(unturned.DefaultBounds()) }

// CaptureBounds returns b with each capture bound that is zero set to
// capture's default (capture.DefaultOptions, unturned.Bounds.Fill), so
// that what the CLI shows (profile show, the --max-* defaults) is what the
// capture runs with.
func CaptureBounds(b unturned.Bounds) unturned.Bounds {
	d := capture.DefaultOptions()
	return b.Fill(unturned.Bounds{
		MaxFlowBuffer: unturned.Size(d.MaxBufferedPerFlow), MaxTotalBuffer: unturned.Size(d.MaxBufferedTotal),
		MaxFlows: d.MaxFlows, MaxFragments: d.MaxFragments, MaxFragmentBytes: unturned.Size(d.MaxFragmentBytes),
		MaxFragmentDatagrams: d.MaxFragmentDatagrams, MaxInterfaces: d.MaxInterfaces, MaxNotes: d.MaxNotes,
		MaxDecompressed: unturned.Size(d.MaxDecompressed),
	})
}

// DefaultBound is the built-in default of the [limits] key (DefaultBounds),
// 0 for a key there is none of.
func DefaultBound(key string) int {
	n, _ := DefaultBounds().Get(key)
	return n
}

// ParseBound is unturned.ParseBound.
func ParseBound(key string, size bool, s string) (int, error) {
	return unturned.ParseBound(key, size, s)
}

// FormatBound is unturned.FormatBound.
func FormatBound(size bool, v int) string { return unturned.FormatBound(size, v) }

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

// datagramUnits name the datagram sessions several captures share
// (merge.Units) when c decodes ULinkRPC: its KCP conversations
// (rpcfeed.Units); nil when ULinkRPC is not decoded.
func (c Config) datagramUnits() merge.Units {
	if c.RPC == nil {
		return nil
	}
	return rpcfeed.Units
}

// sideDecoded reports whether d's ULinkRPC side opened a session: a read
// that breaks off keeps what was decoded (Read).
func (d *Decode) sideDecoded() bool { return d.cfg.RPC != nil && len(d.cfg.RPC.Sessions()) > 0 }

// RPCMessages counts the ULinkRPC records of dc (session.ConnInfo.Proto),
// which live's headless line tells from the game's messages.
func RPCMessages(dc *session.Index) int {
	n := 0
	for _, c := range dc.Connections() {
		if c.Proto == rpc.Name {
			n += c.Messages
		}
	}
	return n
}

// newRouter is the router of a feed into ix with the registered protocols
// and, when rp is not nil, ULinkRPC's side: the router holds it as a side
// (side.go), which names no ULinkRPC type.
func newRouter(ix *session.Index, rp *RPC, as map[uint16]Proto) *router {
	var sd side
	if rp != nil {
		sd = rp
	}
	return routerOf(ix, sd, as)
}

// unturnedNames are the names of unturned.Kind, each once, without the
// Unknown(…) of a kind past the last.
func unturnedNames() []string {
	var out []string
	for k := unturned.Kind(0); !strings.HasPrefix(k.String(), "Unknown("); k++ {
		if !slices.Contains(out, k.String()) {
			out = append(out, k.String())
		}
	}
	return out
}

// rpcNames are the names of the ULinkRPC frame types, then Encrypted (a
// frame the transform layer could not open; Unknown is Unturned's too).
func rpcNames() []string {
	var out []string
	for t := ulinkrpc.Request; t.Known(); t++ {
		out = append(out, t.String())
	}
	return append(out, "Encrypted")
}

// protoOf is the router's Proto of a registered protocol: Unturned and
// ULinkRPC have their own, every other one is ProtoHosted.
func protoOf(p *decode.Protocol) Proto {
	switch p.Name {
	case ProtoUnturned.String():
		return ProtoUnturned
	case rpc.Name:
		return ProtoULinkRPC
	}
	return ProtoHosted
}

// registered are the detectors of the registered protocols in the order
// they registered, ULinkRPC's only when the feed decodes it (rpc), and the
// hosted protocols (those with a constructor other than ULinkRPC).
func registered(rpc bool) (dets []detector, hosted []*decode.Protocol) {
	for _, p := range decode.Protocols() {
		pr := protoOf(p)
		if pr == ProtoULinkRPC && !rpc {
			continue
		}
		if pr == ProtoHosted {
			if p.New == nil {
				continue
			}
			hosted = append(hosted, p)
		}
		if p.Detect != nil {
			dets = append(dets, detector{proto: pr, need: p.Need, check: p.Detect, hp: p})
		}
	}
	return dets, hosted
}

// Unturned's profile search (unturned/infer) over the host's decode: the
// search names no session type, so the host replays its recordings for it
// and hands it its index through an adapter (unturned/feed's Decoded).

// Replay decodes a recording under any profile (infer.Decoder): a new
// index without ULinkRPC, fed the recorded events.
func Replay(rec *Recording) infer.Decoder {
	return func(p *unturned.Profile) infer.Decoded {
		ix := NewIndex(p, -1)
		_ = Feed(rec.Source(), ix, nil)
		return utfeed.Decoded(ix)
	}
}

// Infer records the start of the capture o names (at most InferSample
// bytes of its data, o.Profile's capture options, no ULinkRPC) and
// searches the profile constants that explain it best (infer.Run). A
// capture that cannot be opened, or that breaks before its first event,
// is an error naming it.
func Infer(o Options) (*infer.Result, *Recording, error) {
	src, err := OpenSource(o)
	if err != nil {
		return nil, nil, err
	}
	rec := Record(src, InferSample)
	src.Close()
	if rec.Err != nil && len(rec.Events) == 0 {
		return nil, rec, fmt.Errorf("profile infer: %s: %w", termsafe.Escape(o.Path), rec.Err)
	}
	return infer.Run(orDefault(o.Profile), Replay(rec)), rec, nil
}

// WriteInferReport writes profile infer's report of res, which Infer
// found for o from rec: its JSON (infer.JSON) and a newline when asJSON,
// else the text report (infer.WriteReport) with the capture, the profile o
// decodes under, and what of the capture was searched.
func WriteInferReport(w io.Writer, o Options, rec *Recording, res *infer.Result, asJSON bool) error {
	if !asJSON {
		infer.WriteReport(w, o.Path, orDefault(o.Profile).Name, SearchedKiB(rec), res)
		return nil
	}
	b, err := infer.JSON(res)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// HintRun is the hint's search (a test counts the work it is given and
// spends).
var HintRun = infer.RunBudget

// HintIndex adds a capture finding when the active profile p decodes the
// capture at path badly and an inferred one decodes its start cleanly,
// with the command that prints that profile (issue 13 point 5), judging
// the decode by the whole index dc (unturned/feed's Score). Standard input
// cannot be read again, so it gets no hint.
func HintIndex(p *unturned.Profile, path string, dc *session.Index) {
	if path == "-" {
		return
	}
	Hint(p, path, dc, utfeed.Score(dc))
}

// Hint is HintIndex with the decode's score given (a streaming Index
// tallies it as it goes: infer.Tally, streamHint); a nil p is the default
// profile.
func Hint(p *unturned.Profile, path string, dc *session.Index, h infer.Hint) {
	if path == "-" || !h.Bad() {
		return
	}
	p = orDefault(p)
	rec, size, ok := hintRecording(path, CaptureOptions(p, nil))
	if !ok {
		return
	}
	res := HintRun(p, Replay(rec), hintCandidates, HintBudget(dc.Len(), size))
	if res.Best.Broken > 0 || res.Best.Flagged >= res.Active.Flagged && res.Best.Bad >= res.Active.Bad || len(res.Keys) == 0 || *res.Profile == *p {
		return
	}
	dc.Note(dissect.Conn{}, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Bit: -1,
		Text: fmt.Sprintf("profile %s decodes %d of %d messages with findings; a profile inferred from the capture decodes them without errors and with fewer findings: `usmnscope profile infer %s > inferred.toml`, then --profile inferred.toml",
			termsafe.Escape(p.Name), res.Active.Flagged, res.Active.Messages, termsafe.Escape(path))})
}

// streamHint is the profile hint of a streaming read of the file at path
// into dc under p (nil: the default): a streaming Index keeps no messages
// to score at the end, so heads tallies those the stream hands out
// (infer.Tally), and hint, once the read ends, gives the Hint of that
// score.
func streamHint(p *unturned.Profile, path string, dc *session.Index) (heads func(*session.Head), hint func()) {
	t := &infer.Tally{}
	d := utfeed.Decoded(dc)
	heads = func(h *session.Head) {
		ih := utfeed.Head(h)
		t.Head(d, &ih)
	}
	return heads, func() { Hint(p, path, dc, t.Score(utfeed.Decoded(dc))) }
}
