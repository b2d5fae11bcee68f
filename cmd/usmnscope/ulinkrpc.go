package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned"
)

// The ULinkRPC flags every command takes (ulinkrpc.md 3 and 6); the key
// flags override the profile's [ulinkrpc] key and key_derivation.
const (
	rpcKeyFlag        = "ulinkrpc-key"
	rpcDerivationFlag = "ulinkrpc-key-derivation"
	rpcContractsFlag  = pipeline.ContractsFlag
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
		if err := p.ULinkRPC.SetKey(f.Value.String()); err != nil {
			return usageError{fmt.Errorf("--%s: %w", rpcKeyFlag, err)}
		}
	}
	if f := cmd.Flags().Lookup(rpcDerivationFlag); f != nil && f.Changed {
		if err := p.ULinkRPC.SetKeyDerivation(f.Value.String()); err != nil {
			return usageError{fmt.Errorf("--%s: %w", rpcDerivationFlag, err)}
		}
	}
	return nil
}

// rpcLoader returns the loader of the ULinkRPC decoding a command runs
// with: the profile's [ulinkrpc] table (the key flags over it) and the
// names of --contracts, or without it those of the schema files'
// [[ulinkrpc.service]] and [[ulinkrpc.type]] tables (schema.md 4). Both
// given, --contracts wins, with a note on stderr.
func rpcLoader(cmd *cobra.Command) func() (*pipeline.RPC, error) {
	return func() (*pipeline.RPC, error) {
		p, err := loadProfile(cmd)
		if err != nil {
			return nil, err
		}
		set, err := loadSchemas(cmd)
		if err != nil {
			return nil, err
		}
		dir, _ := cmd.Flags().GetString(rpcContractsFlag)
		return pipeline.RPCFor(p, set, dir, cmd.ErrOrStderr())
	}
}

// newCmdSchemaImport returns `schema import --contracts DIR`: the
// ULinkRPC contracts as schema TOML (schema.md section 4).
func newCmdSchemaImport(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "import --contracts DIR",
		Short: "Print ULinkRPC C# contracts as schema TOML",
		Long: `Reads the C# contract sources under --contracts DIR (services, methods, their
ids and the MemoryPack DTOs) and prints them as the schema TOML of docs/schema.md
("ULinkRPC services and DTO types"), to be edited and given with --schema.`,
		Example: "  usmnscope schema import --contracts fixtures/ulinkrpc/contracts > player.toml",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, _ := cmd.Flags().GetString(rpcContractsFlag)
			if dir == "" {
				return usageError{fmt.Errorf("schema import: --%s DIR is required", rpcContractsFlag)}
			}
			c, err := pipeline.ReadContracts(dir)
			if err != nil {
				return err
			}
			out := newOutput(s.out)
			out.WriteString(ulinkrpc.SchemaTOML(c))
			return out.Flush()
		},
	}
}
