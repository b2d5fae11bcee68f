package rpc

import (
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

var testConn = dissect.Conn{
	Client: netip.MustParseAddrPort("127.0.0.1:50412"),
	Server: netip.MustParseAddrPort("127.0.0.1:20000"),
}

var t0 = time.Date(2026, 4, 30, 12, 0, 0, 0, time.UTC)

func stamp(frame int, us int) Stamp {
	return Stamp{Frame: frame, Time: t0.Add(time.Duration(us) * time.Microsecond)}
}

// contracts reads fixtures/ulinkrpc/contracts.
func contracts(t testing.TB) *ulinkrpc.Contracts {
	t.Helper()
	c, err := ulinkrpc.ParseContractsFS(os.DirFS("../fixtures/ulinkrpc"), "contracts")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wire frames an envelope for a stream.
func wire(env []byte) []byte { return ulinkrpc.AppendFrame(nil, env) }

func loginMP(account string, level int32) []byte {
	return ulinkrpc.MPEncodeObject(true, ulinkrpc.MPString(account), ulinkrpc.MPInt32(level))
}
