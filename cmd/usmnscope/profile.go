package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/unturned"
)

// profileFlag is the persistent root flag every command reads its profile
// from (wire.md 6.1).
const profileFlag = "profile"

// decodeAsFlag names the protocol of a TCP port (wire.md 2):
// --decode-as 27017=unturned, --decode-as 6633=none.
const decodeAsFlag = "decode-as"

// profileLoader returns the loader of the profile a command runs under
// (--profile and the --max-* flags of cmd's command line; loadProfile). A
// command's options hold it rather than the profile, so that a bad profile
// is reported where the command would have read it, after its own usage
// checks (cli/cli's options hold Config the same way).
func profileLoader(cmd *cobra.Command) func() (*unturned.Profile, error) {
	return func() (*unturned.Profile, error) { return loadProfile(cmd) }
}

// decodeLoaders are the loaders of all a decoding command runs under:
// its profile, its payload schemas and its ULinkRPC side.
func decodeLoaders(cmd *cobra.Command) pipeline.Loaders {
	return pipeline.Loaders{Profile: profileLoader(cmd), Schemas: schemaLoader(cmd), RPC: rpcLoader(cmd)}
}

// loadProfile returns the profile named by --profile, or the default
// profile of wire.md 6 when the flag is not set (pipeline.LoadProfile),
// with the --max-* flags given on the command line over its [limits]
// (limits.go), the ULinkRPC key flags and --decode-as. A file that cannot
// be read or parsed is an input error (exit 1) that names the file and
// the key.
func loadProfile(cmd *cobra.Command) (*unturned.Profile, error) {
	var path string
	if f := cmd.Flag(profileFlag); f != nil {
		path = f.Value.String()
	}
	p, err := pipeline.LoadProfile(path)
	if err != nil {
		return nil, err
	}
	if err := applyLimitFlags(cmd, p); err != nil {
		return nil, err
	}
	if err := applyRPCFlags(cmd, p); err != nil {
		return nil, err
	}
	if f := cmd.Flags().Lookup(decodeAsFlag); f != nil && f.Changed {
		vals, _ := cmd.Flags().GetStringArray(decodeAsFlag)
		as, err := pipeline.DecodeAs(vals)
		if err != nil {
			return nil, usageError{err}
		}
		p.DecodeAs = as
	}
	return p, nil
}

// applyLimitFlags writes the --max-* flags given on the command line over
// p's bounds: a flag wins over the profile file, which wins over the
// defaults.
func applyLimitFlags(cmd *cobra.Command, p *unturned.Profile) error {
	for _, lf := range limitFlags {
		f := cmd.Flag(lf.name)
		if f == nil || !f.Changed {
			continue
		}
		v, ok := f.Value.(*boundValue)
		if !ok {
			continue
		}
		if err := p.Bounds.Set(lf.key, v.v); err != nil {
			return usageError{fmt.Errorf("--%s: %w", lf.name, err)}
		}
	}
	return nil
}

// profileShowOptions are what a profile show command line asks for.
type profileShowOptions struct {
	IO      *streams
	profile func() (*unturned.Profile, error)
}

// newCmdProfile returns the profile command and its show subcommand;
// runF, when not nil, runs instead of runProfileShow with the parsed
// options (tests).
func newCmdProfile(s *streams, runF func(*profileShowOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Show the protocol profile in effect",
		Long: `The profile fixes the protocol constants nothing on the wire gives
(docs/profile.md): enum widths, internal message numbers, ID and type-name widths,
the marker. --profile FILE (on every command) overrides them from a TOML file.

Its [limits] table holds the resource bounds (SECURITY.md "Bounds"):
max_flow_buffer, max_total_buffer, max_flows, max_message,
max_table_entries, max_unresolved. Sizes are integers or strings like
"64KiB". The --max-* flags (on every command) override them; profile show
prints the bounds in effect.

Its [ulinkrpc] table (docs/ulinkrpc.md) sets the second protocol: ports (the
server ports of ULinkRPC over TCP, WebSocket and KCP, default [20000]), key
(the base64 master key), key_derivation ("hkdf" or "sha256"), serializer
("auto", "json" or "memorypack") and ws_path. --ulinkrpc-key and
--ulinkrpc-key-derivation override key and key_derivation.`,
		Example: "  usmnscope profile show\n  usmnscope --profile server.toml profile show",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageError{fmt.Errorf("profile: name a subcommand (show, infer)")}
		},
	}
	cmd.AddCommand(newCmdProfileShow(s, runF), newCmdProfileInfer(s, nil))
	return cmd
}

func newCmdProfileShow(s *streams, runF func(*profileShowOptions) error) *cobra.Command {
	o := &profileShowOptions{IO: s}
	return &cobra.Command{
		Use:     "show",
		Short:   "Print the effective profile as TOML",
		Example: "  usmnscope profile show > my.toml\n  usmnscope --profile my.toml profile show\n  usmnscope --max-flows 500 profile show",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.profile = profileLoader(cmd)
			if runF != nil {
				return runF(o)
			}
			return runProfileShow(o)
		},
	}
}

func runProfileShow(o *profileShowOptions) error {
	p, err := o.profile()
	if err != nil {
		return err
	}
	out := newOutput(o.IO.out)
	out.WriteString(p.TOML())
	return out.Flush()
}
