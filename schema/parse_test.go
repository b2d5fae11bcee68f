package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustParse(t testing.TB, name string, src string) *File {
	t.Helper()
	f, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatalf("Parse(%s) = %v", name, err)
	}
	return f
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseType(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Type
		err  string
	}{
		{in: "bool", want: Type{Kind: Bool}},
		{in: "int64", want: Type{Kind: Int64}},
		{in: "uint:0", want: Type{Kind: UInt}},
		{in: "uint:32", want: Type{Kind: UInt, A: 32}},
		{in: "signed:1", want: Type{Kind: Signed, A: 1}},
		{in: "enum:3", want: Type{Kind: Enum, A: 3}},
		{in: "string", want: Type{Kind: String, A: 11}}, // wire.md 1.3: 11 by default
		{in: "string:7", want: Type{Kind: String, A: 7}},
		{in: "bytes", want: Type{Kind: ByteArray}},
		{in: "bytes:16", want: Type{Kind: Bytes, A: 16}},
		{in: "bytes:0", want: Type{Kind: Bytes}},
		{in: "vector3", want: Type{Kind: Vector3, A: 13, B: 7}}, // wire.md 1.3: (13, 7)
		{in: "vector3:13,11", want: Type{Kind: Vector3, A: 13, B: 11}},
		{in: "quaternion", want: Type{Kind: Quaternion, A: 9}},
		{in: "normal3:12", want: Type{Kind: Normal3, A: 12}},
		{in: "clampedfloat:8,4", want: Type{Kind: ClampedFloat, A: 8, B: 4}},
		{in: "uclampedfloat:0,8", want: Type{Kind: UClampedFloat, B: 8}},
		{in: "list:255", want: Type{Kind: List, A: 255}},
		{in: "list:4294967295", want: Type{Kind: List, A: 1<<32 - 1}},
		{in: "yaw:9", want: Type{Kind: Yaw, A: 9}},
		{in: "transform", want: Type{Kind: Transform}},
		{in: "strng", err: `unknown type "strng"`},
		{in: "uint", err: `type "uint" needs uint:N`},
		{in: "uint:33", err: `type "uint:33": width "33" not in 0…32`},
		{in: "signed:0", err: `not in 1…32`},
		{in: "bool:1", err: `type "bool:1" takes no width`},
		{in: "vector3:13", err: `needs vector3:I,F`},
		{in: "clampedfloat", err: `needs clampedfloat:I,F`},
		{in: "clampedfloat:0,0", err: `reads no bits`},
		{in: "list:0", err: `not in 1…4294967295`},
		{in: "list:x", err: `width "x"`},
		{in: "snorm:1", err: `not in 2…32`},
		{in: "", err: `unknown type ""`},
	} {
		got, err := ParseType(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseType(%q) = %v, %v; want error %q", tt.in, got, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("ParseType(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if err == nil {
			// String spells every width, and parses back to the same type.
			if back, err := ParseType(got.String()); err != nil || back != got {
				t.Errorf("ParseType(%q.String() = %q) = %v, %v; want %v", tt.in, got.String(), back, err, got)
			}
		}
	}
}

// TestParseSpec parses schema.md's own examples (testdata/spec.toml) and
// checks what each section yields.
func TestParseSpec(t *testing.T) {
	f := mustParse(t, "spec.toml", string(readFile(t, "testdata/spec.toml")))
	if len(f.Listeners) != 1 {
		t.Fatalf("listeners = %d; want 1", len(f.Listeners))
	}
	l := f.Listeners[0]
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"Type", l.Type, "Sample.ChatListener, Sample"},
		{"Name", l.Name(), "Chat"},
		{"Versions", len(l.Versions), 2},
		{"Line", l.Line, 2},
		{"server EnumBits", l.Server.EnumBits, 2},
		{"client EnumBits", l.Client.EnumBits, 0}, // one value: 0 bits (schema.md 3)
		{"server messages", len(l.Server.Messages), 2},
		{"message 1", l.Server.Message(1).Name, "InvokeMethod"},
		{"message 1 rpc", l.Server.Message(1).RPC, true},
		{"method 0", l.Server.Methods[0].Name, "ReceiveFlyRequest"},
		{"method 0 instance", l.Server.Methods[0].Instance, true},
		{"method 0 param", l.Server.Methods[0].Params[0].Type, Type{Kind: Float}},
		{"hello", l.Server.Message(0).Fields[0].Type, Type{Kind: String, A: 11}},
		{"hello line", l.Server.Message(0).Fields[0].Line, 13},
		{"vanilla client", f.Vanilla.ClientMethods[0].Index, 55},
		{"vanilla client params", len(f.Vanilla.ClientMethods[0].Params), 2},
		{"vanilla server", f.Vanilla.ServerMethods[0].Name, "ReceiveInputs"},
		{"service", f.ULinkRPC.Services[0].Name, "IPlayerService"},
		{"service method", *f.ULinkRPC.Services[0].Methods[0], ServiceMethod{ID: 1, Name: "LoginAsync", Request: "LoginRequest", Reply: "LoginReply", Line: 45}},
		{"push", *f.ULinkRPC.Services[0].Pushes[0], Push{ID: 1, Name: "OnNotify", Arg: "PlayerNotify", Line: 50}},
		{"dto", f.ULinkRPC.Types[0].VersionTolerant, true},
		{"dto member", *f.ULinkRPC.Types[0].Members[1], Member{Order: 1, Name: "Level", Type: "int", Line: 59}},
	} {
		if c.got != c.want {
			t.Errorf("spec.toml %s = %v; want %v", c.what, c.got, c.want)
		}
	}
}

func TestDefines(t *testing.T) {
	f := mustParse(t, "spec.toml", string(readFile(t, "testdata/spec.toml")))
	want := []string{
		`listener "Sample.ChatListener, Sample" (versions 1, 2), line 2`,
		`  c2s: 2-bit message enum`,
		`    message 0 Connect(hello string:11)`,
		`    message 1 InvokeMethod: rpc, 1 methods`,
		`    method 0 instance ReceiveFlyRequest(speed float)`,
		`  s2c: 0-bit message enum`,
		`    message 0 Confirm(v int32)`,
		`vanilla c2s method 12 instance ReceiveInputs(frame uint32), line 36`,
		`vanilla s2c method 55 ReceiveChatEntry(text string:11, color color32rgb), line 30`,
		`ulinkrpc service 1 IPlayerService, line 42`,
		`  method 1 LoginAsync(LoginRequest) LoginReply`,
		`  push 1 OnNotify(PlayerNotify)`,
		`ulinkrpc type LoginRequest {0 Account string; 1 Level int}, version tolerant, line 55`,
	}
	got := f.Defines()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Defines() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// listenerSrc wraps field definitions in a one-message listener, with the
// fields starting on line 6.
func listenerSrc(fields string) string {
	return "[[listener]]\ntype = \"A\"\n[listener.server]\n[[listener.server.message]]\nvalue = 0\nname = \"M\"\nfields = [\n" + fields + "\n]\n"
}

// TestParseErrors: every invalid file names the file, the line and the key.
func TestParseErrors(t *testing.T) {
	const f0 = "listener[0].server.message[0].fields[0]"
	for _, tt := range []struct {
		name, src string
		want      string // the first error, exactly
	}{
		{"syntax", "[[listener]\ntype = 1", `t.toml:2: expected end of table array name delimiter ']', but got '\n' instead`},
		{"syntax line", "[[listener]]\ntype = \"A\"\nversions = [1,\n", "t.toml:3: listener.versions: unexpected EOF; expected value"},
		{"top key", "\n\nlistenr = 1", `t.toml:3: listenr: unknown key "listenr" (want one of listener, vanilla, ulinkrpc)`},
		{"type missing", "[[listener]]\nversions = [1]", `t.toml:1: listener[0].type: missing`},
		{"type int", "[[listener]]\n\ntype = 5", `t.toml:3: listener[0].type: want a string, have an integer`},
		{"versions empty", "[[listener]]\ntype = \"A\"\nversions = []", `t.toml:3: listener[0].versions: empty (leave versions out to cover every version)`},
		{"version neg", "[[listener]]\ntype = \"A\"\nversions = [1,\n  -1]", `t.toml:4: listener[0].versions[1]: want a version 0…4294967295, have -1`},
		{"version twice", "[[listener]]\ntype = \"A\"\nversions = [1, 1]", `t.toml:3: listener[0].versions[1]: version 1 listed twice`},
		{"side key", "[[listener]]\ntype = \"A\"\n[listener.sever]", `t.toml:3: listener[0].sever: unknown key "sever" (want one of type, versions, server, client)`},
		{"dup listener", "[[listener]]\ntype = \"A\"\n[[listener]]\ntype = \"A\"\nversions = [2]", `t.toml:4: listener[1].type: "A" already defined at line 1 for the same versions`},
		{"enum_bits narrow", "[[listener]]\ntype = \"A\"\n[listener.client]\nenum_bits = 1\n[[listener.client.message]]\nvalue = 2\nname = \"X\"", `t.toml:4: listener[0].client.enum_bits: 1 bits cannot hold message value 2`},
		{"enum_bits range", "[[listener]]\ntype = \"A\"\n[listener.client]\nenum_bits = 33", `t.toml:4: listener[0].client.enum_bits: 33 not in 0…32`},
		{"dup value", "[[listener]]\ntype = \"A\"\n[listener.client]\n[[listener.client.message]]\nvalue = 0\nname = \"X\"\n[[listener.client.message]]\nvalue = 0\nname = \"Y\"", `t.toml:8: listener[0].client.message[1].value: value 0 already used by "X"`},
		{"dup message name", "[[listener]]\ntype = \"A\"\n[listener.client]\n[[listener.client.message]]\nvalue = 0\nname = \"X\"\n[[listener.client.message]]\nvalue = 1\nname = \"X\"", `t.toml:9: listener[0].client.message[1].name: name "X" used twice`},
		{"value missing", "[[listener]]\ntype = \"A\"\n[listener.client]\n[[listener.client.message]]\nname = \"X\"", `t.toml:4: listener[0].client.message[0].value: missing`},
		{"rpc fields", "[[listener]]\ntype = \"A\"\n[listener.client]\n[[listener.client.message]]\nvalue = 0\nname = \"X\"\nrpc = true\nfields = []\n[[listener.client.method]]\nname = \"m\"", `t.toml:8: listener[0].client.message[0].fields: an rpc message lists no fields (give them as method params)`},
		{"rpc no methods", "[[listener]]\ntype = \"A\"\n[listener.client]\n[[listener.client.message]]\nvalue = 0\nname = \"X\"\nrpc = true", `t.toml:3: listener[0].client: a message has rpc = true but no [[…method]] is listed`},
		{"methods no rpc", "[[listener]]\ntype = \"A\"\n[listener.client]\n[[listener.client.method]]\nname = \"m\"", `t.toml:4: listener[0].client.method: methods but no message with rpc = true to invoke them`},
		{"rpc not bool", "[[listener]]\ntype = \"A\"\n[listener.client]\n[[listener.client.message]]\nvalue = 0\nname = \"X\"\nrpc = \"yes\"", `t.toml:7: listener[0].client.message[0].rpc: want true or false, have a string`},
		{"field type", listenerSrc(`  { name = "x", type = "strng" },`), `t.toml:8: ` + f0 + `.type: unknown type "strng"`},
		{"field type line", listenerSrc("  { name = \"x\",\n    type = \"uint:99\" },"), `t.toml:9: ` + f0 + `.type: type "uint:99": width "99" not in 0…32`},
		{"field name", listenerSrc(`  { name = "a.b", type = "bool" },`), `t.toml:8: ` + f0 + `.name: name "a.b": only letters, digits, _ and - are allowed`},
		{"field name missing", listenerSrc(`  { type = "bool" },`), `t.toml:8: ` + f0 + `.name: missing`},
		{"field key", listenerSrc(`  { name = "x", type = "bool", size = 3 },`), `t.toml:8: ` + f0 + `.size: unknown key "size" (want one of type, values, item, fields, name)`},
		{"field dup", listenerSrc(`{ name = "x", type = "bool" },` + "\n" + `{ name = "x", type = "bool" }`), `t.toml:9: listener[0].server.message[0].fields[1].name: name "x" used twice`},
		{"reserved", listenerSrc(`{ name = "method", type = "bool" }`), `t.toml:8: ` + f0 + `.name: "method" is reserved for payload.method`},
		{"enum values missing", listenerSrc(`{ name = "e", type = "enum:2" }`), `t.toml:8: ` + f0 + `.values: an enum needs values = { 0 = "Name", … }`},
		{"enum value wide", listenerSrc(`{ name = "e", type = "enum:2", values = { 0 = "A", 4 = "E" } }`), `t.toml:8: ` + f0 + `.values.4: value 4 does not fit in 2 bits`},
		{"enum key", listenerSrc(`{ name = "e", type = "enum:2", values = { x = "A" } }`), `t.toml:8: ` + f0 + `.values.x: key "x" is not an integer`},
		{"enum name", listenerSrc(`{ name = "e", type = "enum:2", values = { 0 = 1 } }`), `t.toml:8: ` + f0 + `.values.0: want a name, have an integer`},
		{"values on uint", listenerSrc(`{ name = "e", type = "uint:2", values = { 0 = "A" } }`), `t.toml:8: ` + f0 + `.values: only enum:N takes values`},
		{"list no item", listenerSrc(`{ name = "l", type = "list:4" }`), `t.toml:8: ` + f0 + `: a list needs item = { type = … } or fields = [ … ]`},
		{"list both", listenerSrc(`{ name = "l", type = "list:4", item = { type = "bool" }, fields = [] }`), `t.toml:8: ` + f0 + `: a list takes item or fields, not both`},
		{"item name", listenerSrc(`{ name = "l", type = "list:4", item = { name = "n", type = "bool" } }`), `t.toml:8: ` + f0 + `.item.name: unknown key "name" (want one of type, values, item, fields)`},
		{"item type", listenerSrc("{ name = \"l\", type = \"list:4\",\n  item = { type = \"nope\" } }"), `t.toml:9: ` + f0 + `.item.type: unknown type "nope"`},
		{"list fields error", listenerSrc("{ name = \"l\", type = \"list:4\", fields = [\n  { name = \"a\", type = \"bool\" },\n  { name = \"b\", type = \"x\" } ] }"), `t.toml:10: ` + f0 + `.fields[1].type: unknown type "x"`},
		{"optional no item", listenerSrc(`{ name = "o", type = "optional" }`), `t.toml:8: ` + f0 + `: an optional needs item = { type = … }`},
		{"struct no fields", listenerSrc(`{ name = "s", type = "struct" }`), `t.toml:8: ` + f0 + `: a struct needs fields = [ … ]`},
		{"item on struct", listenerSrc(`{ name = "s", type = "struct", fields = [], item = { type = "bool" } }`), `t.toml:8: ` + f0 + `.item: only list or optional takes item`},
		{"fields not array", listenerSrc(`{ name = "s", type = "struct", fields = 3 }`), `t.toml:8: ` + f0 + `.fields: want an array, have an integer`},
		{"field not table", listenerSrc(`"bool"`), `t.toml:8: ` + f0 + `: want a table, have a string`},
		{"too deep", listenerSrc(`{ name = "s", type = "struct", fields = [` + strings.Repeat(`{ name = "s", type = "struct", fields = [`, MaxDepth) + strings.Repeat("] }", MaxDepth+1)), `t.toml:8: listener[0].server.message[0]` + strings.Repeat(".fields[0]", MaxDepth+1) + `: nested deeper than 16 levels`},
		{"vanilla key", "[vanilla]\nclient_methods = []", `t.toml:2: vanilla.client_methods: unknown key "client_methods" (want one of client_method, server_method)`},
		{"vanilla index", "[[vanilla.client_method]]\nname = \"X\"", `t.toml:1: vanilla.client_method[0].index: missing`},
		{"vanilla dup", "[[vanilla.client_method]]\nindex = 3\nname = \"X\"\n[[vanilla.client_method]]\nindex = 3\nname = \"Y\"", `t.toml:5: vanilla.client_method[1].index: index 3 already defined at line 1`},
		{"vanilla params", "[[vanilla.server_method]]\nindex = 3\nname = \"X\"\nparams = [ { name = \"a\", type = \"float:3\" } ]", `t.toml:4: vanilla.server_method[0].params[0].type: type "float:3" takes no width`},
		{"service id", "[[ulinkrpc.service]]\nid = 4294967296\nname = \"S\"", `t.toml:2: ulinkrpc.service[0].id: 4294967296 not in -2147483648…2147483647`},
		{"service dup", "[[ulinkrpc.service]]\nid = 1\nname = \"S\"\n[[ulinkrpc.service]]\nid = 1\nname = \"T\"", `t.toml:5: ulinkrpc.service[1].id: service id 1 already defined at line 1`},
		{"method dup", "[[ulinkrpc.service]]\nid = 1\nname = \"S\"\n[[ulinkrpc.service.method]]\nid = 2\nname = \"A\"\n[[ulinkrpc.service.method]]\nid = 2\nname = \"B\"", `t.toml:8: ulinkrpc.service[0].method[1].id: method id 2 used twice in service "S"`},
		{"request type", "[[ulinkrpc.service]]\nid = 1\nname = \"S\"\n[[ulinkrpc.service.method]]\nid = 2\nname = \"A\"\nrequest = \"List<int>\"", `t.toml:7: ulinkrpc.service[0].method[0].request: "List<int>" is not a MemoryPack member type (bool byte sbyte short ushort int uint long ulong float double string, list:T or a type name)`},
		{"member order", "[[ulinkrpc.type]]\nname = \"T\"\nmembers = [ { order = 250, name = \"A\", type = \"int\" } ]", `t.toml:3: ulinkrpc.type[0].members[0].order: 250 not in 0…249`},
		{"member dup", "[[ulinkrpc.type]]\nname = \"T\"\nmembers = [ { order = 0, name = \"A\", type = \"int\" },\n { order = 0, name = \"B\", type = \"list:list:T\" } ]", `t.toml:4: ulinkrpc.type[0].members[1].order: order 0 used twice in "T"`},
		{"type dup", "[[ulinkrpc.type]]\nname = \"T\"\n[[ulinkrpc.type]]\nname = \"T\"", `t.toml:4: ulinkrpc.type[1].name: type "T" already defined at line 1`},
	} {
		_, err := Parse("t.toml", []byte(tt.src))
		list, ok := err.(ErrorList)
		if !ok || len(list) == 0 {
			t.Errorf("%s: Parse = %v; want error %q", tt.name, err, tt.want)
			continue
		}
		if got := list[0].Error(); got != tt.want && !(strings.HasSuffix(tt.want, ": ") && strings.HasPrefix(got, tt.want)) {
			t.Errorf("%s: Parse first error = %q; want %q (all: %v)", tt.name, got, tt.want, err)
		}
	}
}

// TestParseValid: files that look odd but are valid.
func TestParseValid(t *testing.T) {
	for _, tt := range []struct{ name, src string }{
		{"empty", ""},
		{"comments", "# nothing\n"},
		{"listener without sides", "[[listener]]\ntype = \"A\""},
		{"message without fields", "[[listener]]\ntype = \"A\"\n[listener.client]\n[[listener.client.message]]\nvalue = 0\nname = \"Ping\""},
		{"unnamed align", listenerSrc(`{ type = "align" }`)},
		{"enum hex key", listenerSrc(`{ name = "e", type = "enum:8", values = { 0xff = "Max" } }`)},
		{"same type other versions", "[[listener]]\ntype = \"A\"\nversions = [1]\n[[listener]]\ntype = \"A\"\nversions = [2]"},
		{"empty struct", listenerSrc(`{ name = "s", type = "struct", fields = [] }`)},
		{"multiline strings", "[[listener]]\ntype = '''A'''\n[listener.client]\n[[listener.client.message]]\nvalue = 0\nname = \"\"\"X\"\"\""},
		{"max depth", listenerSrc(`{ name = "s", type = "struct", fields = [` + strings.Repeat(`{ name = "s", type = "struct", fields = [`, MaxDepth-1) + strings.Repeat("] }", MaxDepth))},
	} {
		if _, err := Parse("t.toml", []byte(tt.src)); err != nil {
			t.Errorf("%s: Parse = %v; want no error", tt.name, err)
		}
	}
}

func TestLocate(t *testing.T) {
	src := `# comment
a = 1
[t]
"quoted.key" = { x = [1, { y = 2 }] }
s = """
multi
line"""
after = 3
[[arr]]
v = 1
[[arr]]
v = [
  "x",
  'y',
]
[arr.sub]
w = 1
`
	lines := locate(src)
	for _, tt := range []struct {
		path string
		want int
	}{
		{"a", 2},
		{"t", 3},
		{"t.quoted.key", 4},
		{"t.quoted.key.x[1].y", 4},
		{"t.s", 5},
		{"t.after", 8},
		{"arr[0].v", 10},
		{"arr[1]", 11},
		{"arr[1].v[1]", 14},
		{"arr[1].sub.w", 17},
		{"arr[1].sub.missing", 16},
		{"nowhere", 0},
	} {
		if got := lineOf(lines, tt.path); got != tt.want {
			t.Errorf("lineOf(%q) = %d; want %d", tt.path, got, tt.want)
		}
	}
}

// TestFixtureSchemas parses the schemas of the fixtures' sample listeners
// and checks that together they form a Set covering each listener the
// scenarios use, at the versions they use.
func TestFixtureSchemas(t *testing.T) {
	paths, err := filepath.Glob("../fixtures/schemas/*.toml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture schemas: %v", err)
	}
	var files []*File
	for _, p := range paths {
		f, err := Parse(filepath.Base(p), readFile(t, p))
		if err != nil {
			t.Errorf("Parse(%s) = %v", p, err)
			continue
		}
		if len(f.Defines()) == 0 {
			t.Errorf("%s defines nothing", p)
		}
		files = append(files, f)
	}
	set, err := NewSet(files...)
	if err != nil {
		t.Fatalf("NewSet(fixtures) = %v", err)
	}
	for _, l := range []struct {
		typ     string
		version uint32
	}{
		{"Sample.ChatListener, Sample", 1},
		{"Sample.InventoryListener, Sample", 2},
		{"Sample.InventoryListener, Sample", 3},
		{"Sample.MapListener, Sample", 1},
		{"Sample.StatsListener, Sample", 1},
		{"Sample.RadioListener, Sample", 1},
	} {
		if got, _ := set.Listener(l.typ, l.version); got == nil {
			t.Errorf("Listener(%q, %d) = nil; want the fixture schema", l.typ, l.version)
		}
	}
}
