package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/internal/pipeline"
)

// limitFlags are the persistent root flags that override the profile's
// [limits] table (SECURITY.md "Bounds"), one per bound, named after its
// profile key. size says the value is a byte count that takes the
// KiB/MiB/GiB suffixes of a profile's sizes (pipeline.ParseBound).
var limitFlags = []struct {
	name, key string
	size      bool
	usage     string
}{
	{"max-flow-buffer", "max_flow_buffer", true, "out-of-order TCP data buffered per flow, in bytes or with a KiB/MiB/GiB suffix"},
	{"max-total-buffer", "max_total_buffer", true, "out-of-order TCP data buffered in all flows together"},
	{"max-flows", "max_flows", false, "TCP flows tracked at once; later ones are ignored until some close"},
	{"max-message", "max_message", true, "largest SystemSockets message accepted, at most 65535"},
	{"max-table-entries", "max_table_entries", false, "entries per listener table of a connection"},
	{"max-unresolved", "max_unresolved", false, "unresolved listener references held per connection"},
	{"max-findings", "max_findings", false, "findings kept per connection and for the capture; the rest are counted"},
	{"max-fragments", "max_fragments", false, "IPv4 fragments held for reassembly"},
	{"max-fragment-bytes", "max_fragment_bytes", true, "bytes of IPv4 fragments held for reassembly, headers included"},
	{"max-fragment-datagrams", "max_fragment_datagrams", false, "IPv4 datagrams being reassembled at once"},
	{"max-interfaces", "max_interfaces", false, "pcapng interfaces read per section; frames on later ones are skipped"},
	{"max-notes", "max_notes", false, "capture notes of one repeating kind; the rest are counted"},
	{"max-decompressed", "max_decompressed", true, "bytes a gzip-compressed input may expand to"},
	{"max-rpc-buffer", "max_rpc_buffer", true, "bytes of partial ULinkRPC frames and held KCP segments of all connections together"},
	{"max-inflate", "max_inflate", true, "inflated bytes of a gzip ULinkRPC frame kept and decoded; a larger frame keeps its compressed bytes"},
}

// boundValue is a --max-* flag: a bound checked against its profile key's
// range as it is parsed, so a bad value is a usage error that names the
// flag, the key and the value.
type boundValue struct {
	key  string
	size bool
	v    int
}

func (b *boundValue) String() string { return pipeline.FormatBound(b.size, b.v) }

func (b *boundValue) Set(s string) error {
	n, err := pipeline.ParseBound(b.key, b.size, s)
	if err != nil {
		return err
	}
	b.v = n
	return nil
}

func (b *boundValue) Type() string {
	if b.size {
		return "size"
	}
	return "int"
}

// addLimitFlags registers the --max-* flags on root, persistent so that
// every command takes them, each showing its built-in default: capture's
// for the capture bounds, the profile's for the others (pipeline.DefaultBound).
func addLimitFlags(root *cobra.Command) {
	fs := root.PersistentFlags()
	for _, f := range limitFlags {
		v := &boundValue{key: f.key, size: f.size}
		if err := v.Set(strconv.Itoa(pipeline.DefaultBound(f.key))); err != nil {
			panic(fmt.Sprintf("limits: default of %s: %v", f.key, err)) // a bug in the default bounds, caught by every test
		}
		fs.Var(v, f.name, f.usage+" (profile: [limits] "+f.key+")")
	}
}
