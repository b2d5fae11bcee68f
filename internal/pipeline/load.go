package pipeline

import "github.com/usmnscope/usmnscope/schema"

// A command holds Loaders (register.go) rather than what they load, so
// that a bad profile is reported where the command would have read it,
// after its own usage checks; it passes what they load on as one Config,
// without looking into it. What each loader loads, and its default, is
// the registration's.

// Options are the Options of a decode under c, to which the caller adds
// its source.
func (c Config) Options() Options {
	return Options{Config: c}
}

// Load runs every loader, in the order of the registration: the profile,
// the schemas (Early), then ULinkRPC's side (Rest, register.go).
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

// Early runs the profile's and the schemas' loaders only, the sides left
// nil: what a decode of the game's messages alone runs under (profile
// infer, bits), or the part of Load a command checks before it makes its
// output (export, which then calls Rest).
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

// LoadSchemas runs a schema loader; without one (a test's options) there
// are no schemas.
func LoadSchemas(load func() (*schema.Set, error)) (*schema.Set, error) {
	if load == nil {
		return nil, nil
	}
	return load()
}
