package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/scenario"
)

// schemaBenchScenario is a capture whose invokes all have schemas: the
// fixtures' chat, inventory, map and stats listeners, each message kind
// repeated count times.
const schemaBenchScenario = `
name = "schema-bench"
schemas = [%s]
[transport]
tcp_handshake = false
close = false
[[connection]]
client_usmn = true
server_usmn = true
server_listeners = [
  {type = "Sample.ChatListener, Sample", version = 1},
  {type = "Sample.InventoryListener, Sample", version = 2},
  {type = "Sample.MapListener, Sample", version = 1},
  {type = "Sample.StatsListener, Sample", version = 1},
]
client_listeners = [
  {type = "Sample.ChatListener, Sample", version = 1, id = 4001},
  {type = "Sample.InventoryListener, Sample", version = 2, id = 4002},
  {type = "Sample.MapListener, Sample", version = 1, id = 4003},
  {type = "Sample.StatsListener, Sample", version = 1, id = 4004},
]
[[connection.action]]
do = "handshake"
[[connection.action]]
do = "request"
listener = "Sample.InventoryListener, Sample"
[[connection.action]]
do = "request"
listener = "Sample.StatsListener, Sample"
[[connection.action]]
do = "invoke"
from = "server"
listener = "Sample.ChatListener, Sample"
message = "Entry"
values = { sender = 76561198000000001, text = "hello there", color = { r = 1, g = 2, b = 3 }, sent = 2026-01-01T12:00:00Z }
count = %[2]d
[[connection.action]]
do = "invoke"
from = "client"
listener = "Sample.ChatListener, Sample"
message = "Say"
values = { text = "hi" }
count = %[2]d
[[connection.action]]
do = "invoke"
from = "client"
listener = "Sample.InventoryListener, Sample"
message = "Move"
values = { from = 1, to = 2, count = 3 }
count = %[2]d
[[connection.action]]
do = "invoke"
from = "server"
listener = "Sample.MapListener, Sample"
message = "Marker"
values = { owner = 7, position = { x = 1.5, y = 2.0, z = -0.75 }, label = "camp", kind = "Loot" }
count = %[2]d
[[connection.action]]
do = "invoke"
from = "server"
listener = "Sample.StatsListener, Sample"
message = "Report"
values = { kills = 4, deaths = 5, history = [1, 2, 3], rank = { tier = 1 } }
count = %[2]d
`

// writeSchemaBench writes the benchmark capture (5 × count invokes) and
// returns its path and the --schema arguments.
func writeSchemaBench(b *testing.B, count int) (string, []string) {
	b.Helper()
	dir, err := filepath.Abs(schemasDir)
	if err != nil {
		b.Fatal(err)
	}
	names := []string{"chat", "inventory", "map", "stats"}
	var quoted, args []string
	for _, n := range names {
		p := filepath.Join(dir, n+".toml")
		quoted = append(quoted, fmt.Sprintf("%q", p))
		args = append(args, "--"+schemaFlag, p)
	}
	tmp := b.TempDir()
	scPath := filepath.Join(tmp, "bench.toml")
	if err := os.WriteFile(scPath, []byte(fmt.Sprintf(schemaBenchScenario, strings.Join(quoted, ", "), count)), 0o644); err != nil {
		b.Fatal(err)
	}
	sc, err := scenario.ReadFile(scPath)
	if err != nil {
		b.Fatal(err)
	}
	capPath := filepath.Join(tmp, "bench.pcapng")
	f, err := os.Create(capPath)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := sc.Generate(f, scenario.PCAPNG); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return capPath, args
}

// BenchmarkDumpJSONSchemas: dump --json of a capture whose invokes all
// have schemas, with the schemas and without (issue 14: with costs at most
// 2× without). 50,000 invokes.
func BenchmarkDumpJSONSchemas(b *testing.B) {
	capPath, schemaArgs := writeSchemaBench(b, 10000)
	for _, v := range []struct {
		name string
		args []string
	}{
		{"without", []string{"dump", "--json", capPath}},
		{"with", append(append([]string{"dump", "--json"}, schemaArgs...), capPath)},
	} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if code := Execute(v.args, strings.NewReader(""), io.Discard, io.Discard); code != exitOK {
					b.Fatalf("usmnscope %v: exit %d", v.args, code)
				}
			}
		})
	}
}
