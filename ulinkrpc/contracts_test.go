package ulinkrpc

import (
	"strings"
	"testing"
	"testing/fstest"
)

// Two spellings of the same contracts: the current release's (as the
// samples write it) and the newer NotificationContract one with const ids
// defined in another file, nested.
var (
	csIDs = `namespace Game.Rpc.Contracts
{
    public static class RpcContractIds
    {
        public static class Services
        {
            public const int Player = 1;
            public const int Inventory = Player + 1; // 2
        }
        public static class Methods { public const int Login = 0x1, Step = Login + 1; }
    }
}`
	csOld = `using System.Threading.Tasks;
using ULinkRPC.Core;

namespace Game.Rpc.Contracts
{
    /* the player service */
    [RpcService(1, Callback = typeof(IPlayerCallback))]
    public interface IPlayerService
    {
        [RpcMethod(1)]
        ValueTask<LoginReply> LoginAsync(LoginRequest req);

        [RpcMethod(2)]
        ValueTask IncrStep(StepRequest req, CancellationToken ct = default);
    }

    [RpcCallback(typeof(IPlayerService))]
    public interface IPlayerCallback
    {
        [RpcPush(1)]
        void OnPlayerNotify(PlayerNotify notify);
    }
}`
	csNew = `using ULinkRPC.Core;
namespace Game.Rpc.Contracts;

[RpcService(RpcContractIds.Services.Inventory, NotificationContract = typeof(IInventoryNotify))]
public interface IInventoryService
{
    [RpcMethodAttribute(RpcContractIds.Methods.Login)]
    System.Threading.Tasks.ValueTask<global::Game.Rpc.Contracts.LoginReply> Open(Item[] items);
}

[RpcNotificationContract]
public interface IInventoryNotify
{
    [RpcNotification(Methods.Step)] void Changed(List<Item> items);
    string Ignored(int x);
}`
	csDTOs = `using MemoryPack;
namespace Game.Rpc.Contracts
{
    [MemoryPackable(GenerateType.VersionTolerant)]
    public partial class LoginRequest
    {
        [MemoryPackOrder(0)]
        public string Account { get; set; } = "";
        [MemoryPackOrder(1)]
        public int Level { get; set; }
        [MemoryPackIgnore] public string Secret { get; set; } = "x";
        public static int Count;
        public void Method() { var s = "}"; }
    }
    [MemoryPackable]
    public partial struct Item { public long Id; public float[] Weights; public List<string> Tags; }
}`
)

func contractFiles() []SourceFile {
	return []SourceFile{{"Ids.cs", []byte(csIDs)}, {"IPlayerService.cs", []byte(csOld)}, {"IInventoryService.cs", []byte(csNew)}, {"Dtos.cs", []byte(csDTOs)}}
}

const wantTOML = `[[ulinkrpc.service]]
id = 1
name = "IPlayerService"
[[ulinkrpc.service.method]]
id = 1
name = "LoginAsync"
request = "LoginRequest"
reply = "LoginReply"
[[ulinkrpc.service.method]]
id = 2
name = "IncrStep"
request = "StepRequest"
[[ulinkrpc.service.push]]
id = 1
name = "OnPlayerNotify"
arg = "PlayerNotify"

[[ulinkrpc.service]]
id = 2
name = "IInventoryService"
[[ulinkrpc.service.method]]
id = 1
name = "Open"
request = "list:Item"
reply = "LoginReply"
[[ulinkrpc.service.push]]
id = 2
name = "Changed"
arg = "list:Item"

[[ulinkrpc.type]]
name = "LoginRequest"
version_tolerant = true
members = [
  { order = 0, name = "Account", type = "string" },
  { order = 1, name = "Level", type = "int" }
]

[[ulinkrpc.type]]
name = "Item"
version_tolerant = false
members = [
  { order = 0, name = "Id", type = "long" },
  { order = 1, name = "Weights", type = "list:float" },
  { order = 2, name = "Tags", type = "list:string" }
]
`

func TestParseContracts(t *testing.T) {
	c, err := ParseContracts(contractFiles())
	if err != nil {
		t.Fatalf("ParseContracts = %v", err)
	}
	if got := SchemaTOML(c); got != wantTOML {
		t.Errorf("SchemaTOML(contracts) =\n%s\nwant\n%s", got, wantTOML)
	}
	tests := []struct {
		t        FrameType
		svc, m   int32
		sn, name string
	}{
		{Request, 1, 1, "IPlayerService", "LoginAsync"},
		{Push, 1, 1, "IPlayerService", "OnPlayerNotify"},
		{Push, 2, 2, "IInventoryService", "Changed"},
		{Request, 2, 2, "IInventoryService", ""},
		{Request, 9, 1, "", ""},
	}
	for _, tt := range tests {
		s, m := c.Lookup(tt.t, tt.svc, tt.m)
		var sn, name string
		if s != nil {
			sn = s.Name
		}
		if m != nil {
			name = m.Name
		}
		if sn != tt.sn || name != tt.name {
			t.Errorf("Lookup(%v, %d, %d) = %s.%s; want %s.%s", tt.t, tt.svc, tt.m, sn, name, tt.sn, tt.name)
		}
	}
}

func TestParseContractsFS(t *testing.T) {
	fsys := fstest.MapFS{}
	for _, f := range contractFiles() {
		fsys["contracts/sub/"+f.Name] = &fstest.MapFile{Data: f.Text}
	}
	fsys["contracts/readme.md"] = &fstest.MapFile{Data: []byte("[RpcService(9)] interface IX {}")}
	c, err := ParseContractsFS(fsys, "contracts")
	if err != nil || SchemaTOML(c) != wantTOML {
		t.Errorf("ParseContractsFS = %v\n%s", err, SchemaTOML(c))
	}
}

func TestParseContractsErrors(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{`[RpcService(Missing)] interface IA { [RpcMethod(1)] ValueTask A(X x); }`, "ulinkrpc contracts: a.cs:1: IA: id: const Missing not found"},
		{`class K { const int A = B; const int B = A; } [RpcService(K.A)] interface IA {}`, "ulinkrpc contracts: a.cs:1: IA: id: const A refers to itself"},
		{`[RpcService(1, Callback = typeof(INope))] interface IA {}`, "ulinkrpc contracts: a.cs:1: IA: callback interface INope not found"},
		{"[RpcService(1)]\ninterface IA {\n [RpcMethod] ValueTask A(X x); }", "ulinkrpc contracts: a.cs:3: IA.A: [RpcMethod] without an id"},
		{`[RpcService(5000000000)] interface IA {}`, "ulinkrpc contracts: a.cs:1: IA: id: 5000000000 does not fit an int"},
	}
	for _, tt := range tests {
		_, err := ParseContracts([]SourceFile{{"a.cs", []byte(tt.src)}})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseContracts(%q) = %v; want %s", tt.src, err, tt.want)
		}
	}
}
