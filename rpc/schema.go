package rpc

import (
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// SchemaContracts are the ULinkRPC names a schema set gives (schema.md
// section 4: its [[ulinkrpc.service]] and [[ulinkrpc.type]] tables) as the
// contract model `--contracts DIR` reads from C# sources (ulinkrpc.md 6),
// so that a schema file made by `schema import --contracts DIR` names what
// the folder names. Services and types come in the order of the files and
// of their tables; a definition the set refused as a clash is left out.
// It returns nil when the set names no service and no type.
func SchemaContracts(set *schema.Set) *ulinkrpc.Contracts {
	var c ulinkrpc.Contracts
	for _, f := range set.Files() {
		for _, sv := range f.ULinkRPC.Services {
			if set.Service(sv.ID) != sv {
				continue
			}
			s := ulinkrpc.Service{ID: sv.ID, Name: sv.Name}
			for _, m := range sv.Methods {
				s.Methods = append(s.Methods, ulinkrpc.Method{ID: m.ID, Name: m.Name, Request: m.Request, Reply: m.Reply})
			}
			for _, p := range sv.Pushes {
				s.Pushes = append(s.Pushes, ulinkrpc.Method{ID: p.ID, Name: p.Name, Request: p.Arg})
			}
			c.Services = append(c.Services, s)
		}
		for _, t := range f.ULinkRPC.Types {
			if set.DTO(t.Name) != t {
				continue
			}
			d := ulinkrpc.DTO{Name: t.Name, VersionTolerant: t.VersionTolerant}
			for _, m := range t.Members {
				d.Members = append(d.Members, ulinkrpc.DTOMember{Order: m.Order, Name: m.Name, Type: m.Type})
			}
			c.Types = append(c.Types, d)
		}
	}
	if len(c.Services) == 0 && len(c.Types) == 0 {
		return nil
	}
	return &c
}
