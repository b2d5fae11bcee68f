package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/internal/config"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views"
	"github.com/usmnscope/usmnscope/views/messages"
)

// The config file (issue 30, docs/cli.md "The config file"):
// $XDG_CONFIG_HOME/usmnscope/config.toml, read and checked by
// internal/config. Its profile, schemas, contracts and ULinkRPC key are
// defaults for the flags of those names; its theme, columns, keys and copy
// command are the terminal UI's. `usmnscope config show` prints it.

// newCmdConfig returns the config command and its show.
func newCmdConfig(s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the config file (defaults for flags, the TUI's columns, keys, theme and copy command)",
		Long: `usmnscope reads $XDG_CONFIG_HOME/usmnscope/config.toml (default
~/.config/usmnscope/config.toml) when it exists: profile, schemas, contracts,
ulinkrpc_key and ulinkrpc_key_derivation are defaults for the flags of those
names; theme (dark or light), [columns], [keys] (the TUI's keys rebound) and
copy_command (the program the TUI's copy key pipes to, such as wl-copy,
instead of OSC 52) are the terminal UI's; the TUI writes [columns] when you
change the message list's columns. Every key is in docs/cli.md "The config
file".`,
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
			if _, err := f.CheckKeys(views.CheckKeys); err != nil {
				return err
			}
			defaults := map[string][]config.Column{}
			for set, cols := range views.DefaultColumnSets() {
				for _, c := range cols {
					defaults[set] = append(defaults[set], config.Column{Field: c.Field, Width: c.Width})
				}
			}
			_, err = fmt.Fprint(s.out, f.Show(path, defaults))
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
	if cmd.Name() == "open" || cmd.Name() == "live" {
		if _, err := f.CheckKeys(views.CheckKeys); err != nil {
			return err
		}
	}
	return f.SetFlags(cmd.Flags())
}

// fileConfig sets the TUI's part of cfg from the config file: the
// columns (read with the filter language's lookup, saved back to the
// file), the theme, the keys and the copy command. applyConfig has
// reported what is wrong in the file; what is wrong now is left out.
func fileConfig(cfg *views.Config) {
	cfg.Columns = views.Columns{Lookup: lookupColumn, Field: filter.FieldOf, Save: saveColumns}
	f, err := config.Load(config.Path())
	if err != nil {
		return
	}
	if sets := f.ColumnSets(filter.IsField); sets != nil {
		cfg.Columns.Sets = map[string][]messages.Column{}
		for set, cols := range sets {
			cfg.Columns.Sets[set] = []messages.Column{}
			for _, c := range cols {
				cfg.Columns.Sets[set] = append(cfg.Columns.Sets[set], messages.Column{Field: c.Field, Width: c.Width})
			}
		}
	}
	cfg.Theme = f.Theme
	cfg.Keys, _ = f.CheckKeys(views.CheckKeys)
	cfg.CopyCommand, _ = f.CopyArgv()
}

func lookupColumn(field string, m *session.Message) messages.Value {
	v := filter.Lookup(field, m)
	return messages.Value{Text: v.Text, Num: v.Num, Numeric: v.Numeric, OK: v.OK}
}

// saveColumns writes the sets into the config file, keeping its other keys.
func saveColumns(sets map[string][]messages.Column) error {
	out := map[string][]config.Column{}
	for set, cols := range sets {
		out[set] = []config.Column{}
		for _, c := range cols {
			out[set] = append(out[set], config.Column{Field: c.Field, Width: c.Width})
		}
	}
	return config.SaveColumns(config.Path(), out)
}
