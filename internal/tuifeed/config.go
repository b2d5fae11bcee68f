package tuifeed

import (
	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/internal/config"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views"
	"github.com/usmnscope/usmnscope/views/messages"
)

// FileConfig sets the TUI's part of cfg from the config file (issue 30,
// docs/cli.md "The config file"): the columns (read with the filter
// language's lookup, saved back to the file), the theme, the keys and the
// copy command. The command line has reported what is wrong in the file
// (config.File.CheckKeys); what is wrong now is left out.
func FileConfig(cfg *views.Config) {
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

// ShowConfig is `usmnscope config show`: the config file's path and its
// keys, the columns it leaves unset as the TUI's defaults. A file that
// cannot be read, or binds keys the TUI refuses, is an error.
func ShowConfig() (string, error) {
	path := config.Path()
	f, err := config.Load(path)
	if err != nil {
		return "", err
	}
	if _, err := f.CheckKeys(views.CheckKeys); err != nil {
		return "", err
	}
	defaults := map[string][]config.Column{}
	for set, cols := range views.DefaultColumnSets() {
		for _, c := range cols {
			defaults[set] = append(defaults[set], config.Column{Field: c.Field, Width: c.Width})
		}
	}
	return f.Show(path, defaults), nil
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
