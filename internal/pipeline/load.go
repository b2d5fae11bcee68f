package pipeline

import (
	"fmt"
	"io"

	"github.com/usmnscope/usmnscope/internal/config"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/unturned"
)

// Load runs a decoding command's three loaders, the configuration Options
// takes: its profile's, its payload schemas' (LoadSchemas) and its
// ULinkRPC side's (LoadRPC). A command holds loaders rather than what
// they load, so that a bad profile is reported where the command would
// have read it, after its own usage checks.
func Load(profile func() (*unturned.Profile, error), schemas func() (*schema.Set, error), rpcs func() (*RPC, error)) (*unturned.Profile, *schema.Set, *RPC, error) {
	p, err := profile()
	if err != nil {
		return nil, nil, nil, err
	}
	set, err := LoadSchemas(schemas)
	if err != nil {
		return nil, nil, nil, err
	}
	rp, err := LoadRPC(rpcs)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, set, rp, nil
}

// LoadSchemas runs a schema loader; without one (a test's options) there
// are no schemas.
func LoadSchemas(load func() (*schema.Set, error)) (*schema.Set, error) {
	if load == nil {
		return nil, nil
	}
	return load()
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
