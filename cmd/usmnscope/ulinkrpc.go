package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned"
)

// The ULinkRPC flags every command takes (ulinkrpc.md 3 and 6); the key
// flags override the profile's [ulinkrpc] key and key_derivation.
const (
	rpcKeyFlag        = "ulinkrpc-key"
	rpcDerivationFlag = "ulinkrpc-key-derivation"
	rpcContractsFlag  = "contracts"
)

func addRPCFlags(root *cobra.Command) {
	fs := root.PersistentFlags()
	fs.String(rpcKeyFlag, "", "ULinkRPC master key, `BASE64`: decrypts the transform layer (over the profile's [ulinkrpc] key)")
	fs.String(rpcDerivationFlag, "", "how the ULinkRPC keys come from the master key: `hkdf` (current releases) or sha256 (before 2026-04-12); over the profile's key_derivation")
	fs.String(rpcContractsFlag, "", "`DIR` of ULinkRPC C# contract sources: names services, methods and MemoryPack members")
}

// applyRPCFlags sets the profile's [ulinkrpc] key and key_derivation from
// --ulinkrpc-key and --ulinkrpc-key-derivation, when given (loadProfile),
// so that profile show prints what every command decodes with.
func applyRPCFlags(cmd *cobra.Command, p *unturned.Profile) error {
	if f := cmd.Flags().Lookup(rpcKeyFlag); f != nil && f.Changed {
		key := f.Value.String()
		r := unturned.RPCProfile{Key: key}
		if k, err := r.MasterKey(); err != nil || k == nil {
			return usageError{fmt.Errorf("--%s: not a base64 key: %q", rpcKeyFlag, termsafe.Escape(key))}
		}
		p.ULinkRPC.Key = strings.TrimSpace(key)
	}
	if f := cmd.Flags().Lookup(rpcDerivationFlag); f != nil && f.Changed {
		d := f.Value.String()
		if !slices.Contains(unturned.KeyDerivations, d) {
			return usageError{fmt.Errorf("--%s: %q is not %s", rpcDerivationFlag, termsafe.Escape(d), strings.Join(unturned.KeyDerivations, " or "))}
		}
		p.ULinkRPC.KeyDerivation = d
	}
	return nil
}

// rpcLoader returns the loader of the ULinkRPC decoding a command runs
// with: the profile's [ulinkrpc] table (the key flags over it) and
// --contracts.
func rpcLoader(cmd *cobra.Command) func() (*pipeline.RPC, error) {
	return func() (*pipeline.RPC, error) {
		p, err := loadProfile(cmd)
		if err != nil {
			return nil, err
		}
		dir, _ := cmd.Flags().GetString(rpcContractsFlag)
		return newRPC(p.ULinkRPC, dir)
	}
}

// newRPC builds the ULinkRPC side of a feed from a profile's [ulinkrpc]
// table (validated) and a contracts folder (may be empty).
func newRPC(r unturned.RPCProfile, dir string) (*pipeline.RPC, error) {
	var cfg rpc.Config
	master, err := r.MasterKey()
	if err != nil {
		return nil, fmt.Errorf("ulinkrpc.key: %w", err)
	}
	if master != nil {
		d := ulinkrpc.HKDF
		if r.KeyDerivation == "sha256" {
			d = ulinkrpc.SHA256
		}
		k := ulinkrpc.DeriveKeys(master, d)
		cfg.Transform.Keys = &k
	}
	switch r.Serializer {
	case "json":
		cfg.Serializer = ulinkrpc.SerializerJSON
	case "memorypack":
		cfg.Serializer = ulinkrpc.SerializerMemoryPack
	}
	if dir != "" {
		c, err := readContracts(dir)
		if err != nil {
			return nil, err
		}
		cfg.Contracts = c
	}
	rp := pipeline.NewRPC(cfg)
	rp.Ports = r.Ports.List()
	return rp, nil
}

// readContracts reads every *.cs file under dir.
func readContracts(dir string) (*ulinkrpc.Contracts, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--%s %s: not a folder", rpcContractsFlag, termsafe.Escape(dir))
	}
	c, err := ulinkrpc.ParseContractsFS(os.DirFS(dir), ".")
	if err != nil {
		return nil, fmt.Errorf("--%s %s: %s", rpcContractsFlag, termsafe.Escape(dir), termsafe.Escape(err.Error()))
	}
	return c, nil
}

// loadRPC runs a command's ULinkRPC loader; a command built without one (a
// test's options) decodes ULinkRPC with no key and no contracts.
func loadRPC(load func() (*pipeline.RPC, error)) (*pipeline.RPC, error) {
	if load == nil {
		return pipeline.NewRPC(rpc.Config{}), nil
	}
	return load()
}

// rpcLine is a ULinkRPC record's dump line: number, time since the first
// message of the capture, connection, direction and rpc.Line.
func rpcLine(r *rpc.Record, start time.Time) string {
	return fmt.Sprintf("%5d %10s %s %s %s", r.N, relTime(r.Time, start), r.Conn, r.Dir, rpc.Line(r))
}

// printRPC prints a ULinkRPC message of a text dump, where its number puts
// it among the Unturned ones: its line, with -V its layer tree
// (rpc.TreeText), and with -x its envelope's bytes.
func (d *dumper) printRPC(m *session.Message) error {
	line := rpcLine(m.RPC, d.format.start) + "\n"
	if d.o.verbose {
		line += rpc.TreeText(m.RPC)
	}
	if _, err := d.out.WriteString(line); err != nil {
		return err
	}
	if d.o.hex && len(m.RPC.Envelope) > 0 {
		_, err := d.out.WriteString(hexASCII(m.RPC.Envelope))
		return err
	}
	return nil
}

// writeRPCConn prints a ULinkRPC connection of `tables`: its per-method
// counts and latency, pushes, keep-alives, statuses and pending requests as
// of the table t (nil: none yet), then its findings.
func writeRPCConn(out *bufio.Writer, ci session.ConnInfo, t *session.Tables) {
	var rt rpc.Tables
	n := 0
	if t != nil && t.RPC != nil {
		rt, n = *t.RPC, t.Messages
	}
	fmt.Fprintf(out, "\nconnection %s: ulinkrpc over %s, %d records\n", ci.Conn, ci.Transport, n)
	if len(rt.Methods) == 0 {
		fmt.Fprintln(out, "  methods: none")
	} else {
		fmt.Fprintln(out, "  methods:")
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "    SERVICE.METHOD\tIDS\tREQUESTS\tRESPONSES\tERRORS\tPENDING\tLATENCY MIN/MEDIAN/MAX")
		for _, m := range rt.Methods {
			fmt.Fprintf(tw, "    %s\t%d.%d\t%d\t%d\t%d\t%d\t%s\n", rpc.MethodText(m.Service, m.Method), m.ServiceID, m.MethodID,
				m.Requests, m.Responses, m.Errors, m.Pending, latencyText(m.Latency))
		}
		tw.Flush()
	}
	for _, p := range rt.Pushes {
		fmt.Fprintf(out, "  push %s (%d.%d): %d\n", rpc.MethodText(p.Service, p.Method), p.ServiceID, p.MethodID, p.Count)
	}
	fmt.Fprintf(out, "  keep-alive: %d pings, %d pongs, rtt %s\n", rt.KeepAlive.Pings, rt.KeepAlive.Pongs, latencyText(rt.KeepAlive.RTT))
	if len(rt.Status) > 0 {
		parts := make([]string, len(rt.Status))
		for i, c := range rt.Status {
			parts[i] = fmt.Sprintf("%s %d", termsafe.Escape(c.Name), c.Count)
		}
		fmt.Fprintf(out, "  status: %s\n", strings.Join(parts, ", "))
	}
	for _, p := range rt.Pending {
		fmt.Fprintf(out, "  pending: #%d request %d (%d.%d)\n", p.N, p.RequestID, p.ServiceID, p.MethodID)
	}
	for _, f := range ci.Findings {
		fmt.Fprintf(out, "  %s %s: %s\n", f.Severity, f.Group, termsafe.Escaped(f.Text))
	}
}

// latencyText is min/median/max as rpc.FormatLatency writes them, or "-".
func latencyText(l rpc.Latency) string {
	if !l.OK {
		return "-"
	}
	return rpc.FormatLatency(l.Min) + " / " + rpc.FormatLatency(l.Median) + " / " + rpc.FormatLatency(l.Max) + latencyMore(l)
}

// latencyMore is the rest of the latency figures (issue 26: the keys
// tables --json adds), after the min/median/max: "; p90/p95/p99 … / … / …,
// mean …, jitter …".
func latencyMore(l rpc.Latency) string {
	s := &l.Summary
	if s.Count == 0 {
		return ""
	}
	return "; p90/p95/p99 " + rpc.FormatLatency(s.P90) + " / " + rpc.FormatLatency(s.P95) + " / " + rpc.FormatLatency(s.P99) +
		", mean " + rpc.FormatLatency(s.Mean) + ", jitter " + rpc.FormatLatency(s.Jitter)
}

// newCmdSchemaImport returns `schema import --contracts DIR`: the
// ULinkRPC contracts as schema TOML (schema.md section 4).
func newCmdSchemaImport(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "import --contracts DIR",
		Short: "Print ULinkRPC C# contracts as schema TOML",
		Long: `Reads the C# contract sources under --contracts DIR (services, methods, their
ids and the MemoryPack DTOs) and prints them as the schema TOML of schema.md
section 4, to be edited and given with --schema.`,
		Example: "  usmnscope schema import --contracts fixtures/ulinkrpc/contracts > player.toml",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, _ := cmd.Flags().GetString(rpcContractsFlag)
			if dir == "" {
				return usageError{fmt.Errorf("schema import: --%s DIR is required", rpcContractsFlag)}
			}
			c, err := readContracts(dir)
			if err != nil {
				return err
			}
			out := newOutput(s.out)
			out.WriteString(ulinkrpc.SchemaTOML(c))
			return out.Flush()
		},
	}
}
