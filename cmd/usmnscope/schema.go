package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/usmnscope/usmnscope/internal/config"
	"github.com/usmnscope/usmnscope/schema"
)

// schemaFlag is the root's repeatable --schema FILE (schema.md).
const schemaFlag = "schema"

// loadSchemas reads every schema in force (config.SchemaFiles: the
// config folder's, then every --schema) into one Set (schema.Load); with
// none it returns nil, which decodes as before.
func loadSchemas(cmd *cobra.Command) (*schema.Set, error) {
	var flagged []string
	if f := cmd.Flag(schemaFlag); f != nil {
		flagged, _ = cmd.Flags().GetStringArray(schemaFlag)
	}
	return schema.Load(config.SchemaFiles(flagged), config.ReadSchema)
}

// schemaLoader returns the loader of the schemas a command runs with.
func schemaLoader(cmd *cobra.Command) func() (*schema.Set, error) {
	return func() (*schema.Set, error) { return loadSchemas(cmd) }
}

// schemaCheckOptions are what a schema check command line asks for.
type schemaCheckOptions struct {
	IO    *streams
	files []string
}

// newCmdSchema returns the schema command and its check subcommand; runF,
// when not nil, runs instead of runSchemaCheck (tests).
func newCmdSchema(s *streams, runF func(*schemaCheckOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Work with payload schema files (docs/schema.md)",
		Long: `Payload schemas tell usmnscope what is inside listener payloads and vanilla
InvokeMethod parameters. They are given with --schema FILE (repeatable, on
every command) and read from $XDG_CONFIG_HOME/usmnscope/schemas/*.toml.`,
		Example: "  usmnscope schema check fixtures/schemas/chat.toml",
		Args:    cobra.NoArgs,
	}
	o := &schemaCheckOptions{IO: s}
	check := &cobra.Command{
		Use:   "check FILE...",
		Short: "Validate schema files and list what each defines",
		Long: `Parses each schema file, reports every problem with its file, line and key,
checks that the files do not define the same listener, vanilla method,
service or type twice, and lists what each file defines.`,
		Example: "  usmnscope schema check fixtures/schemas/*.toml",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = args
			if runF != nil {
				return runF(o)
			}
			return runSchemaCheck(o)
		},
	}
	cmd.AddCommand(check, newCmdSchemaImport(s))
	return cmd
}

func runSchemaCheck(o *schemaCheckOptions) error {
	out := newOutput(o.IO.out)
	bad := schema.Check(out, o.IO.err, o.files, config.ReadSchema)
	if err := out.Flush(); err != nil {
		return err
	}
	if bad > 0 {
		return fmt.Errorf("schema check: %d of %d files have problems", bad, len(o.files))
	}
	return nil
}
