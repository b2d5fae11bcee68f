package pipeline

import "github.com/usmnscope/usmnscope/schema"

// A command holds Loaders (register.go) rather than what they load, so
// that a bad profile is reported where the command would have read it,
// after its own usage checks; it passes what they load on as one Config,
// without looking into it. This file runs the loaders in the
// registration's order (Loaders.steps); what each loads, and its default,
// is the registration's.

// Options are the Options of a decode under c, to which the caller adds
// its source.
func (c Config) Options() Options {
	return Options{Config: c}
}

// Load runs every loader, in the order of the registration: the profile,
// the schemas, then ULinkRPC's side.
func (l Loaders) Load() (Config, error) {
	var c Config
	steps, _ := l.steps()
	if err := run(&c, steps); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Early runs the profile's and the schemas' loaders only, the sides left
// nil: what a decode of the game's messages alone runs under (profile
// infer, bits), or the part of Load a command checks before it makes its
// output (export, which then calls Rest).
func (l Loaders) Early() (Config, error) {
	var c Config
	steps, early := l.steps()
	if err := run(&c, steps[:early]); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Rest completes what Early loaded into c: its sides.
func (l Loaders) Rest(c *Config) error {
	steps, early := l.steps()
	return run(c, steps[early:])
}

// run runs steps over c in order, stopping at the first error.
func run(c *Config, steps []func(*Config) error) error {
	for _, step := range steps {
		if err := step(c); err != nil {
			return err
		}
	}
	return nil
}

// LoadSchemas runs a schema loader; without one (a test's options) there
// are no schemas.
func LoadSchemas(load func() (*schema.Set, error)) (*schema.Set, error) {
	if load == nil {
		return nil, nil
	}
	return load()
}
