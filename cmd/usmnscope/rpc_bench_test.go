package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/usmnscope/usmnscope/scenario"
)

// rpcCapture is the ULinkRPC capture of the issue-15 benchmarks: the file
// USMNSCOPE_RPC_CAPTURE names (bench/ulinkrpc.sh generates a 1M-frame one
// with `gen --scale N --protocol ulinkrpc`), else a 100,000-frame load
// capture generated into a temporary folder, so that `make bench` runs it
// too.
func rpcCapture(b *testing.B, transport string) string {
	if path := os.Getenv("USMNSCOPE_RPC_CAPTURE"); path != "" && transport == "tcp" {
		if _, err := os.Stat(path); err != nil {
			b.Skip(err)
		}
		return path
	}
	path := filepath.Join(b.TempDir(), "rpc-"+transport+".pcapng")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := (scenario.RPCScale{Frames: 100000, Conns: 32, Seed: 1, Transport: transport}).Generate(f, scenario.PCAPNG); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkRPCTablesJSON runs `tables --json` over a ULinkRPC load
// capture through the cobra entry point: one op is one whole capture
// (issue 15: at least 20x faster than tshark's plain pass; the paired
// figure is bench/ulinkrpc.sh's). For profiling:
//
//	USMNSCOPE_RPC_CAPTURE=/tmp/rpc.pcapng go test -run '^$' \
//	  -bench RPCTablesJSON/tcp -benchtime 3x -cpuprofile cpu.out ./cmd/usmnscope
func BenchmarkRPCTablesJSON(b *testing.B) {
	for _, tr := range []string{"tcp", "websocket", "kcp"} {
		b.Run(tr, func(b *testing.B) {
			path := rpcCapture(b, tr)
			b.ReportAllocs()
			for b.Loop() {
				if code := Execute([]string{"tables", "--json", path}, nil, io.Discard, io.Discard); code != exitOK {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

// BenchmarkRPCDumpJSON runs `dump --json` over the same capture, the
// full decoding that tables --json does not need.
func BenchmarkRPCDumpJSON(b *testing.B) {
	path := rpcCapture(b, "tcp")
	b.ReportAllocs()
	for b.Loop() {
		if code := Execute([]string{"dump", "--json", path}, nil, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}
