// Package config reads and writes usmnscope's config file,
// $XDG_CONFIG_HOME/usmnscope/config.toml (default
// ~/.config/usmnscope/config.toml; docs/cli.md "The config file"): the
// terminal UI's message-list columns per protocol view, and defaults for
// the profile, the contracts folder, the ULinkRPC key, the schemas and the
// theme. It knows no protocol; cmd applies what it holds.
package config
