package feed

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned"
)

// ContractsFlag is the flag that names the folder of ULinkRPC C#
// contract sources (ulinkrpc.md 6); ReadContracts' errors name it.
const ContractsFlag = "contracts"

// Bounds sets the ULinkRPC bounds of the profile's [limits] on cfg: one
// Budget for every ULinkRPC connection of the capture (max_rpc_buffer) and
// the display cap on inflated frames (max_inflate).
func Bounds(cfg *rpc.Config, b unturned.Bounds) {
	cfg.Budget = ulinkrpc.NewBudget(int(b.MaxRPCBuffer))
	cfg.Transform.KeepInflated = int(b.MaxInflate)
}

// With builds the ULinkRPC side of a feed from a profile's [ulinkrpc]
// table (validated) and a contracts folder (may be empty: ReadContracts).
func With(r unturned.RPCProfile, dir string) (*RPC, error) {
	rp, err := Of(r, nil)
	if err != nil || dir == "" {
		return rp, err
	}
	if rp.Config.Contracts, err = ReadContracts(dir); err != nil {
		return nil, err
	}
	return rp, nil
}

// ReadContracts reads every *.cs file under dir.
func ReadContracts(dir string) (*ulinkrpc.Contracts, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--%s %s: not a folder", ContractsFlag, termsafe.Escape(dir))
	}
	// An empty or unreadable folder is said, not taken as "no names"
	// (issue 30: a typo in the path decoded silently without names).
	if _, err := os.ReadDir(dir); err != nil {
		return nil, fmt.Errorf("--%s %s: cannot be read: %s", ContractsFlag, termsafe.Escape(dir), termsafe.Escape(err.Error()))
	}
	sources := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".cs" {
			sources++
		}
		return nil
	})
	if sources == 0 {
		return nil, fmt.Errorf("--%s %s: no C# sources (*.cs) in it or below it", ContractsFlag, termsafe.Escape(dir))
	}
	// An os.Root's FS: a symlink leaving the folder is an error, not read.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("--%s %s: %s", ContractsFlag, termsafe.Escape(dir), termsafe.Escape(err.Error()))
	}
	defer root.Close()
	c, err := ulinkrpc.ParseContractsFS(root.FS(), ".")
	if err != nil {
		return nil, fmt.Errorf("--%s %s: %s", ContractsFlag, termsafe.Escape(dir), termsafe.Escape(err.Error()))
	}
	if len(c.Services) == 0 && len(c.Types) == 0 {
		return nil, fmt.Errorf("--%s %s: no [RpcService] interface and no [MemoryPackable] type in its %s", ContractsFlag, termsafe.Escape(dir), dissect.Count(sources, "C# source"))
	}
	return c, nil
}
