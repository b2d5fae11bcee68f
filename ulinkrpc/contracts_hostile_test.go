package ulinkrpc

import (
	"io/fs"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/BurntSushi/toml"
	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// TestParseContractsHostile: issue 29's hostile contract sources are each
// an error naming the file and line, under 64 MB of allocation
// (100,000-deep generics took 52 s before: normType's work grows with the
// square of the depth).
func TestParseContractsHostile(t *testing.T) {
	deep := "[MemoryPackable]\npublic partial class D {\n  public " + strings.Repeat("List<", 100000) + "int" + strings.Repeat(">", 100000) + " X { get; set; }\n}\n"
	arrays := "[RpcService(1)]\ninterface IA {\n  [RpcMethod(1)] ValueTask<int" + strings.Repeat("[]", 100000) + "> A(int x);\n}\n"
	for _, c := range []struct{ name, src, want string }{
		{"100,000-deep generics", deep, "ulinkrpc contracts: d.cs:3: a type nested deeper than 32 generic arguments and arrays: member skipped"},
		{"100,000-deep arrays", arrays, "ulinkrpc contracts: d.cs:3: a type nested deeper than 32 generic arguments and arrays: member skipped"},
		{"invalid UTF-8", "// ok\n// \xe2\x28\xa1\n", "ulinkrpc contracts: d.cs:2: invalid UTF-8 at byte offset 9: C# sources are UTF-8; file skipped"},
		{"cyclic consts", "class K {\n const int A = B + 1;\n const int B = A; }\n[RpcService(K.A)] interface IA {}", "ulinkrpc contracts: d.cs:4: IA: id: const A refers to itself"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := ParseContracts([]SourceFile{{"d.cs", []byte(c.src)}})
		runtime.ReadMemStats(&after)
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseContracts(%s) = %v; want %q", c.name, err, c.want)
		}
		if a := after.TotalAlloc - before.TotalAlloc; a > 64<<20 {
			t.Errorf("ParseContracts(%s) allocated %d MiB; want under 64 MiB", c.name, a>>20)
		}
	}
}

// TestParseContractsCyclicTypes: DTOs that name each other are read (C#
// allows them); the MemoryPack decoder's depth bound ends a payload nested
// under them (mpMaxDepth).
func TestParseContractsCyclicTypes(t *testing.T) {
	src := `[MemoryPackable] public partial class A { public B Next { get; set; } public A Self { get; set; } }
[MemoryPackable] public partial class B { public A Back { get; set; } }`
	c, err := ParseContracts([]SourceFile{{"c.cs", []byte(src)}})
	if err != nil || len(c.Types) != 2 {
		t.Fatalf("ParseContracts(cyclic DTOs) = %v, %d types; want nil, 2", err, len(c.Types))
	}
}

// TestParseContractsFSFiles: only regular files are read (a FIFO would
// block, a device never end), and the files hold a bounded number of bytes
// together.
func TestParseContractsFSFiles(t *testing.T) {
	ok := &fstest.MapFile{Data: []byte("[RpcService(1)] interface IA {}")}
	for _, c := range []struct {
		name string
		fsys fstest.MapFS
		max  int64
		want string
	}{
		{"fifo", fstest.MapFS{"c/a.cs": ok, "c/p.cs": {Mode: fs.ModeNamedPipe}}, 1 << 20, "ulinkrpc contracts: c/p.cs: not a regular file (p---------)"},
		{"device", fstest.MapFS{"c/z.cs": {Mode: fs.ModeDevice | fs.ModeCharDevice}}, 1 << 20, "ulinkrpc contracts: c/z.cs: not a regular file (Dc---------)"},
		{"total bytes", fstest.MapFS{"c/a.cs": ok, "c/b.cs": ok}, 40, "ulinkrpc contracts: c/b.cs: the *.cs files hold more than 40 bytes together"},
	} {
		_, err := parseContractsFS(c.fsys, "c", c.max)
		if err == nil || err.Error() != c.want {
			t.Errorf("parseContractsFS(%s) = %v; want %q", c.name, err, c.want)
		}
	}
	if _, err := parseContractsFS(fstest.MapFS{"c/a.cs": ok, "c/b.cs": ok}, "c", 62); err != nil {
		t.Errorf("parseContractsFS(2 files of 31 bytes, cap 62) = %v; want nil", err)
	}
}

// TestSchemaTOMLEscapes: names from a contract file reach `schema import`'s
// output through the terminal rule (termsafe.Unsafe) written as TOML
// escapes: no raw right-to-left override, escape or C1 control on the
// terminal, and the TOML reads back as the same names (issue 29 point 5).
func TestSchemaTOMLEscapes(t *testing.T) {
	src := "[RpcService(1)] interface IEvil\u202eNaMe { [RpcMethod(2)] ValueTask<R\u009bX> Do\u2066It(Q\U000E0041 q); }"
	c, err := ParseContracts([]SourceFile{{"e.cs", []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	out := SchemaTOML(c)
	for _, r := range out {
		if r != '\n' && termsafe.Unsafe(r) {
			t.Errorf("SchemaTOML has a raw %U:\n%s", r, out)
		}
	}
	for _, want := range []string{`name = "IEvil\u202ENaMe"`, `name = "Do\u2066It"`, `reply = "R\u009BX"`, `request = "Q\U000E0041"`} {
		if !strings.Contains(out, want) {
			t.Errorf("SchemaTOML lacks %s:\n%s", want, out)
		}
	}
	var back struct {
		ULinkRPC struct {
			Service []struct {
				Name   string
				Method []struct{ Name, Request, Reply string }
			}
		}
	}
	if _, err := toml.Decode(out, &back); err != nil || len(back.ULinkRPC.Service) != 1 || back.ULinkRPC.Service[0].Name != "IEvil\u202eNaMe" ||
		back.ULinkRPC.Service[0].Method[0].Reply != "R\u009bX" {
		t.Errorf("SchemaTOML does not read back: %v, %+v", err, back)
	}
}
