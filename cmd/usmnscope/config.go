package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/internal/config"
	"github.com/usmnscope/usmnscope/internal/tuifeed"
	"github.com/usmnscope/usmnscope/views"
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
			text, err := tuifeed.ShowConfig()
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(s.out, text)
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
