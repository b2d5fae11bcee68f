package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/unturned"
)

// UsageError is a request Gen or Play refuses for its shape (flags that
// exclude each other, a missing output): the command line's mistake, not
// the input's. The CLI exits 2 on it.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

func usagef(format string, a ...any) error { return UsageError{fmt.Errorf(format, a...)} }

// Gen is what `usmnscope gen` asks for: a scenario file played into a
// capture, or a load capture of Scale messages (ULinkRPC frames with
// Protocol "ulinkrpc").
type Gen struct {
	File   string    // the scenario file; "" for a load capture
	Out    string    // the capture file to write; "-" for Stdout
	Stdout io.Writer // where Out "-" writes
	PCAP   bool      // classic pcap (also for an Out ending in .pcap)

	Scale, Conns int
	Seed         uint64
	Link         string
	Protocol     string // unturned or ulinkrpc
	Transport    string // tcp, websocket or kcp (ulinkrpc load only)

	// Profile loads the profile in force; ProfileSet says it was given
	// (--profile): it then replaces the scenario file's profile.
	Profile    func() (*unturned.Profile, error)
	ProfileSet bool
}

// Run writes the capture Gen asks for and says what it holds and in which
// format. A write that fails part-way keeps what was written (the error
// says how much); a new empty file of Run's own is removed.
func (g Gen) Run() (Stats, Format, error) {
	if g.Out == "" {
		return Stats{}, 0, usagef("gen: -o OUT is required")
	}
	if (g.File != "") == (g.Scale > 0) {
		return Stats{}, 0, usagef("gen: give either a scenario file or --scale N")
	}
	if g.Protocol != "unturned" && g.Protocol != "ulinkrpc" {
		return Stats{}, 0, usagef("gen: --protocol %s: not unturned or ulinkrpc", termsafe.Escape(g.Protocol))
	}
	if g.Transport != "tcp" && (g.Protocol != "ulinkrpc" || g.Scale == 0) {
		return Stats{}, 0, usagef("gen: --transport is for --scale N --protocol ulinkrpc")
	}
	format := PCAPNG
	if g.PCAP || strings.EqualFold(filepath.Ext(g.Out), ".pcap") {
		format = PCAP
	}
	var sc *Scenario
	var rs *RPC // a ULinkRPC scenario (protocol = "ulinkrpc")
	if g.File != "" {
		data, err := os.ReadFile(g.File)
		if err != nil {
			return Stats{}, format, err
		}
		if IsRPC(data) {
			if rs, err = ReadRPCFile(g.File); err != nil {
				return Stats{}, format, err
			}
		} else if sc, err = ReadFile(g.File); err != nil {
			return Stats{}, format, err
		}
	}
	if err := overProfile(sc, g.ProfileSet, g.Profile); err != nil {
		return Stats{}, format, err
	}
	var scaleProfile *unturned.Profile
	if sc == nil && rs == nil {
		p, err := g.Profile()
		if err != nil {
			return Stats{}, format, err
		}
		scaleProfile = p
	}
	w, closeOut, created, err := create(g.Stdout, g.Out)
	if err != nil {
		return Stats{}, format, err
	}
	var st Stats
	switch {
	case rs != nil:
		st, err = rs.Generate(w, format)
	case sc != nil:
		st, err = sc.Generate(w, format)
	case g.Protocol == "ulinkrpc":
		st, err = RPCScale{Frames: g.Scale, Conns: g.Conns, Seed: g.Seed, Transport: g.Transport, Link: g.Link}.Generate(w, format)
	default:
		st, err = Scale{Messages: g.Scale, Conns: g.Conns, Seed: g.Seed, Link: g.Link, P: scaleProfile}.Generate(w, format)
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		var written int64
		if fi, serr := os.Stat(g.Out); serr == nil && g.Out != "-" {
			written = fi.Size()
		}
		switch {
		case created && written == 0:
			os.Remove(g.Out) // only a new empty regular file of ours, never a device or an old file
		case written > 0:
			// A full disk keeps what was written (issue 8): a capture cut
			// mid-record, which reads up to the cut with a finding.
			err = fmt.Errorf("%w (the %d bytes written before it are kept in %s)", err, written, termsafe.Escape(g.Out))
		}
		return st, format, err
	}
	return st, format, nil
}

// create opens the output file, or stdout for "-". created says whether
// the file is a new regular file, the only kind gen removes when it fails
// before writing anything.
func create(stdout io.Writer, path string) (w io.Writer, closeOut func() error, created bool, err error) {
	if path == "-" {
		return stdout, func() error { return nil }, false, nil
	}
	_, statErr := os.Lstat(path)
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, false, fmt.Errorf("gen: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && os.IsNotExist(statErr) {
		created = true
	}
	return f, f.Close, created, nil
}

// overProfile lets --profile, which every command takes, replace the
// profile a scenario file names for the messages it encodes (wire.md 6.1);
// addresses the scenario left to the profile's default port keep the
// scenario's own profile. Without --profile (set), or without a scenario,
// it does nothing.
func overProfile(sc *Scenario, set bool, load func() (*unturned.Profile, error)) error {
	if sc == nil || !set {
		return nil
	}
	p, err := load()
	if err != nil {
		return err
	}
	sc.P = p
	return nil
}

// Play is what `usmnscope simulate` asks for: a scenario file and a load
// mix played between a real server and client (Sim), or injected onto an
// interface (Inject), its progress and last line written to Sim.Log.
type Play struct {
	Scenario string // the scenario file; "" for the load mix alone
	Sim      Sim
	Inject   bool
	Iface    string

	SpeedSet bool     // --speed was given (it excludes --full-speed)
	IfaceSet bool     // -i was given (it goes with --inject)
	TCPFlags []string // the TCP-only flags given, which Inject refuses
	MixFlags []string // the load mix flags given, which a ULinkRPC scenario refuses

	Profile    func() (*unturned.Profile, error)
	ProfileSet bool // --profile was given
}

// Run plays what p asks for until it ends or ctx is done.
func (p Play) Run(ctx context.Context) error {
	if p.Scenario == "" && p.Sim.Count <= 0 {
		return usagef("simulate: give --scenario F, --count N or both")
	}
	if p.SpeedSet && p.Sim.FullSpeed {
		return usagef("simulate: --speed and --full-speed exclude each other")
	}
	if p.Sim.Speed <= 0 {
		return usagef("simulate: --speed must be above 0, not %g", p.Sim.Speed)
	}
	if p.Sim.Count < 0 || p.Sim.Rate < 0 || p.Sim.Conns < 1 || p.Sim.Conns > 10000 {
		return usagef("simulate: --count and --rate cannot be negative, --conns must be 1 to 10000")
	}
	if p.Scenario != "" {
		if data, err := os.ReadFile(p.Scenario); err == nil && IsRPC(data) {
			return p.runRPC(ctx)
		}
	}
	var sc *Scenario
	if p.Scenario != "" {
		var err error
		if sc, err = ReadFile(p.Scenario); err != nil {
			return err
		}
	}
	if err := overProfile(sc, p.ProfileSet, p.Profile); err != nil {
		return err
	}
	if sc != nil {
		p.Sim.P = sc.P
	} else if p.ProfileSet {
		pr, err := p.Profile()
		if err != nil {
			return err
		}
		p.Sim.P = pr
	}
	if p.Inject {
		return p.runInject(ctx, sc)
	}
	if p.IfaceSet {
		return usagef("simulate: -i goes with --inject")
	}
	fmt.Fprintf(p.Sim.Log, "simulating on %s\n", p.Sim.Addr)
	res, err := p.Sim.Run(ctx, sc)
	if err != nil {
		return err
	}
	p.done(res)
	return nil
}

// runInject is simulate --inject: the TCP-only flags are refused rather
// than ignored.
func (p Play) runInject(ctx context.Context, sc *Scenario) error {
	if len(p.TCPFlags) > 0 {
		return usagef("simulate: --%s is for TCP connections, not --inject", p.TCPFlags[0])
	}
	in := Inject{Iface: p.Iface, Rate: p.Sim.Rate, Count: p.Sim.Count, Conns: p.Sim.Conns, Seed: p.Sim.Seed, P: p.Sim.P}
	fmt.Fprintf(p.Sim.Log, "injecting on %s\n", termsafe.Escape(p.Iface))
	res, err := in.Run(ctx, sc)
	if errors.Is(err, ErrInjectPermission) {
		return fmt.Errorf("simulate --inject: sending raw frames on %s needs CAP_NET_RAW: run as root or setcap cap_net_raw+ep the binary", termsafe.Escape(p.Iface))
	}
	if err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	secs := res.Elapsed.Seconds()
	rate := func(n int) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	fmt.Fprintf(p.Sim.Log, "injected %d packets, %d messages in %.3f s: %.0f pkt/s, %.0f msg/s\n",
		res.Packets, res.Messages, secs, rate(res.Packets), rate(res.Messages))
	return nil
}

// runRPC plays a ULinkRPC scenario: the flags of the Unturned load mix
// and of --inject are refused rather than ignored.
func (p Play) runRPC(ctx context.Context) error {
	sc, err := ReadRPCFile(p.Scenario)
	if err != nil {
		return err
	}
	switch {
	case p.Inject:
		return UsageError{errors.New("simulate: --inject replays Unturned scenarios, not a ULinkRPC one")}
	case len(p.MixFlags) > 0:
		return usagef("simulate: --%s is for the Unturned load mix, not a ULinkRPC scenario", p.MixFlags[0])
	case p.IfaceSet:
		return usagef("simulate: -i goes with --inject")
	case sc.U.Transport == "kcp" && (p.Sim.Nagle || p.Sim.Congestion != ""):
		return UsageError{errors.New("simulate: --nagle and --congestion are for TCP, not a ULinkRPC scenario over KCP")}
	}
	addr := RPCAddr(sc)
	if slices.Contains(p.TCPFlags, "addr") {
		addr = p.Sim.Addr
	} else {
		p.Sim.Addr = ""
	}
	fmt.Fprintf(p.Sim.Log, "simulating ulinkrpc over %s on %s\n", sc.U.Transport, termsafe.Escape(addr))
	res, err := p.Sim.RunRPC(ctx, sc)
	if err != nil {
		return err
	}
	p.done(res)
	return nil
}

// done prints simulate's last line, the same for both protocols.
func (p Play) done(res SimResult) {
	fmt.Fprintf(p.Sim.Log, "done: %d connections, %d messages, c2s %d bytes, s2c %d bytes in %v\n",
		res.Conns, res.Messages, res.Bytes[0], res.Bytes[1], res.Elapsed.Round(1e6))
}
