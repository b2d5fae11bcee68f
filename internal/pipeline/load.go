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

// Loaders are a command's loaders of the protocols' configuration: its
// profile's, its payload schemas' (LoadSchemas) and its ULinkRPC side's
// (LoadRPC). A command holds loaders rather than what they load, so that
// a bad profile is reported where the command would have read it, after
// its own usage checks; it passes what they load on as one Config,
// without looking into it. A nil Profile loads the default profile.
type Loaders struct {
	Profile func() (*unturned.Profile, error)
	Schemas func() (*schema.Set, error)
	RPC     func() (*RPC, error)
}

// Config is the protocols' configuration one decode runs under, as
// Loaders load it: the profile (the game's constants, [limits],
// [ulinkrpc] and --decode-as), the payload schemas and the ULinkRPC
// decoding. Options takes it (Config.Options).
type Config struct {
	Profile *unturned.Profile
	Schemas *schema.Set
	RPC     *RPC
}

// Options are the Options of a decode under c, to which the caller adds
// its source.
func (c Config) Options() Options {
	return Options{Profile: c.Profile, Schemas: c.Schemas, RPC: c.RPC}
}

// Load runs the three loaders, in the order profile, schemas, ULinkRPC.
func (l Loaders) Load() (Config, error) {
	c, err := l.Early()
	if err == nil {
		err = l.Rest(&c)
	}
	if err != nil {
		return Config{}, err
	}
	return c, nil
}

// Early runs the profile's and the schemas' loaders only, RPC left nil:
// what a decode of the game's messages alone runs under (profile infer,
// bits), or the part of Load a command checks before it makes its output
// (export, which then calls Rest).
func (l Loaders) Early() (Config, error) {
	p, err := l.profile()
	if err != nil {
		return Config{}, err
	}
	set, err := LoadSchemas(l.Schemas)
	if err != nil {
		return Config{}, err
	}
	return Config{Profile: p, Schemas: set}, nil
}

// Rest completes what Early loaded into c: its ULinkRPC side.
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
