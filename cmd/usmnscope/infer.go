package main

import (
	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/internal/pipeline"
)

// profileInferOptions are what a profile infer command line asks for.
type profileInferOptions struct {
	IO   *streams
	load pipeline.Loaders // the profile decoded under

	capture string
	json    bool
}

func newCmdProfileInfer(s *streams, runF func(*profileInferOptions) error) *cobra.Command {
	o := &profileInferOptions{IO: s}
	cmd := &cobra.Command{
		Use:   "infer CAPTURE",
		Short: "Search the profile constants that best explain a capture",
		Long: `Decode CAPTURE (a file, or - for standard input) again under candidate
profiles and print, as a TOML profile (docs/profile.md), the constants that
explain it best, each with its evidence and confidence. The search decides
the constants in the order the wire lets them be decided (the game from the
workshop handshake, the marker, the widening, the listener header widths,
the negotiate modes) and says how many candidate profiles it tried. Keys the
capture cannot decide are left out (they keep their defaults) and listed as
undecided with the reason; client_methods and server_methods are never
decided (an InvokeMethod's parameters are not described by any profile).
--json prints {"profile": {KEY: VALUE}, "evidence": {KEY: {"confidence",
"text"}}, "undecided": {KEY: REASON}, "searched": {"candidates", "decodes",
"messages", "ms"}}.`,
		Example: "  usmnscope profile infer capture.pcapng > server.toml\n  usmnscope --profile server.toml dump capture.pcapng",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.capture = args[0]
			o.load = pipeline.Loaders{Profile: profileLoader(cmd)}
			if runF != nil {
				return runF(o)
			}
			return runProfileInfer(o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON instead of TOML")
	return cmd
}

func runProfileInfer(o *profileInferOptions) error {
	// Without ULinkRPC (Early): the search decodes the game's messages.
	cfg, err := o.load.Early()
	if err != nil {
		return err
	}
	opts := cfg.Options()
	opts.Path, opts.Stdin = o.capture, o.IO.in
	res, rec, err := pipeline.Infer(opts)
	if err != nil {
		return err
	}
	out := newOutput(o.IO.out)
	if err := pipeline.WriteInferReport(out, opts, rec, res, o.json); err != nil {
		return err
	}
	return out.Flush()
}
