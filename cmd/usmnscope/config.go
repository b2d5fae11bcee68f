package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/internal/config"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views"
	"github.com/usmnscope/usmnscope/views/messages"
)

// The config file (issue 30, docs/cli.md "The config file"):
// $XDG_CONFIG_HOME/usmnscope/config.toml. Its profile, schemas, contracts
// and ULinkRPC key are defaults for the flags of those names; its theme and
// columns are the terminal UI's. `usmnscope config show` prints it.

// newCmdConfig returns the config command and its show.
func newCmdConfig(s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the config file (defaults for flags, the TUI's columns and theme)",
		Long: `usmnscope reads $XDG_CONFIG_HOME/usmnscope/config.toml (default
~/.config/usmnscope/config.toml) when it exists: profile, schemas, contracts,
ulinkrpc_key and ulinkrpc_key_derivation are defaults for the flags of those
names, theme (dark or light) and [columns] are the terminal UI's; the TUI
writes [columns] when you change the message list's columns. Every key is in
docs/cli.md "The config file".`,
		Example: "  usmnscope config show",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:     "show",
		Short:   "Print the config file's path and its keys",
		Example: "  usmnscope config show",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			path := config.Path()
			f, err := config.Load(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(s.out, "# %s\n", path)
			if len(f.Columns) == 0 {
				f.Columns = map[string][]string{}
				for set, cols := range views.DefaultColumnSets() {
					for _, c := range cols {
						f.Columns[set] = append(f.Columns[set], config.FormatColumn(config.Column{Field: c.Field, Width: c.Width}))
					}
				}
				fmt.Fprintln(s.out, "# columns: the defaults (the file sets none)")
			}
			_, err = fmt.Fprint(s.out, f.Text())
			return err
		},
	})
	return cmd
}

// applyConfig gives the flags not on the command line the config file's
// defaults (root's PersistentPreRunE).
func applyConfig(cmd *cobra.Command) error {
	if cmd.Name() == "show" || cmd.Name() == "help" || cmd.Name() == "completion" {
		return nil
	}
	f, err := config.Load(config.Path())
	if err != nil {
		return err
	}
	set := func(name, v string) error {
		fl := cmd.Flags().Lookup(name)
		if fl == nil || fl.Changed || v == "" {
			return nil
		}
		return cmd.Flags().Set(name, v)
	}
	for _, kv := range [][2]string{{profileFlag, f.Profile}, {rpcContractsFlag, f.Contracts}, {rpcKeyFlag, f.ULinkRPCKey}, {rpcDerivationFlag, f.KeyDerivation}} {
		if err := set(kv[0], kv[1]); err != nil {
			return fmt.Errorf("config: %s: %w", kv[0], err)
		}
	}
	if fl := cmd.Flags().Lookup(schemaFlag); fl != nil && !fl.Changed {
		for _, sc := range f.Schemas {
			if err := cmd.Flags().Set(schemaFlag, sc); err != nil {
				return fmt.Errorf("config: schemas: %w", err)
			}
		}
	}
	return nil
}

// tuiColumns are the TUI's columns: the config file's sets (the defaults
// when it sets none), read with the filter language's lookup, saved back
// to the file.
func tuiColumns() (views.Columns, string) {
	c := views.Columns{Lookup: lookupColumn, Field: columnField, Save: saveColumns}
	f, err := config.Load(config.Path())
	if err != nil {
		return c, ""
	}
	if len(f.Columns) > 0 {
		c.Sets = map[string][]messages.Column{}
		for set, cols := range f.Columns {
			for _, s := range cols {
				if col, err := config.ParseColumn(s); err == nil && filter.IsField(col.Field) {
					c.Sets[set] = append(c.Sets[set], messages.Column{Field: col.Field, Width: col.Width})
				}
			}
		}
	}
	return c, f.Theme
}

func lookupColumn(field string, m *session.Message) messages.Value {
	v := filter.Lookup(field, m)
	return messages.Value{Text: v.Text, Num: v.Num, Numeric: v.Numeric, OK: v.OK}
}

// columnField maps a field of the detail pane to the filter field a
// column shows.
func columnField(span string) string {
	switch span {
	case "enum":
		return "msg"
	case "Listener_ID", "Serverside_Listener_ID":
		return "server_id"
	case "Clientside_Listener_ID":
		return "client_id"
	case "Listener_Type_Name":
		return "listener"
	case "type":
		return "msg"
	}
	if filter.IsField(span) {
		return span
	}
	if strings.HasPrefix(span, "payload.") || filter.IsField(strings.ToLower(span)) {
		return strings.ToLower(span[:1]) + span[1:]
	}
	return ""
}

// saveColumns writes the sets into the config file, keeping its other keys.
func saveColumns(sets map[string][]messages.Column) error {
	path := config.Path()
	f, err := config.Load(path)
	if err != nil {
		return err
	}
	f.Columns = map[string][]string{}
	for set, cols := range sets {
		out := []string{}
		for _, c := range cols {
			out = append(out, config.FormatColumn(config.Column{Field: c.Field, Width: c.Width}))
		}
		f.Columns[set] = out
	}
	return config.Save(path, f)
}
