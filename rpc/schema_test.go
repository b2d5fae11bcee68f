package rpc

import (
	"os"
	"reflect"
	"testing"

	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// TestSchemaContracts: the fixture contracts printed as schema TOML
// (ulinkrpc.SchemaTOML, what `schema import` prints) and parsed back give
// the contract model the C# sources give, less what the TOML does not
// carry (the callback interface's name, which names nothing shown).
func TestSchemaContracts(t *testing.T) {
	want, err := ulinkrpc.ParseContractsFS(os.DirFS("../fixtures/ulinkrpc"), "contracts")
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Services {
		want.Services[i].Callback = ""
	}
	f, err := schema.Parse("imported.toml", []byte(ulinkrpc.SchemaTOML(want)))
	if err != nil {
		t.Fatal(err)
	}
	set, err := schema.NewSet(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := SchemaContracts(set); !reflect.DeepEqual(got, want) {
		t.Errorf("SchemaContracts(import of the fixture contracts) = %+v; want %+v", got, want)
	}
	if got := SchemaContracts(nil); got != nil {
		t.Errorf("SchemaContracts(nil) = %+v; want nil", got)
	}
}
