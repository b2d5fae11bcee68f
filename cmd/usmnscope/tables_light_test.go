package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/scenario"
	"github.com/usmnscope/usmnscope/session"
)

// tablesWith reads a tables command line's capture as runTables does, but
// with the session.Stream stream gives, and prints its tables; it also
// reports whether the index hosted the ULinkRPC connections in light
// sessions (all of them), in full ones (none), or had none.
func tablesWith(t *testing.T, args string, stream func(at int) session.Stream) (out string, light, full int) {
	t.Helper()
	o, err := parseOptions(t, newCmdTables, args)
	if err != nil || o == nil {
		t.Fatalf("%s: %v", args, err)
	}
	cfg, err := o.load.Load()
	if err != nil {
		t.Fatal(err)
	}
	rp := cfg.RPC
	dc, err := readCaptureRPC(o.IO, cfg.Profile, nil, rp, o.capture, nil, func(*session.Index) session.Stream { return stream(o.at) })
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	for _, s := range rp.Sessions() {
		if s.Light() {
			light++
		} else {
			full++
		}
	}
	var buf bytes.Buffer
	w := newOutput(&buf)
	if o.json {
		b, err := dc.TablesJSONAt(o.at)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	} else {
		writeTables(w, dc, o.at)
	}
	w.Flush()
	return buf.String(), light, full
}

// TestTablesLightSame: `tables` reads ULinkRPC in light sessions (its
// Stream hands no message out: session.OpenRPC, rpc.Config.Light), and
// prints, as text and as JSON, at the end and --at a message, exactly what
// full sessions give (a Stream that hands every message out, as dump's),
// over every fixture capture (the encrypted ones also without the key and
// with a wrong one), generated load captures of each transport and
// Unturned fixtures mixed with ULinkRPC ones. The CLI prints the light
// reading.
func TestTablesLightSame(t *testing.T) {
	plainOnly(t, "the light tables against full sessions")
	var caps [][2]string // capture, ULinkRPC flags
	for _, c := range rpcCaptures(t) {
		name := strings.TrimSuffix(filepath.Base(c), ".pcapng")
		caps = append(caps, [2]string{c, strings.Join(rpcArgs(name), " ")})
		if strings.Contains(name, "encrypted") {
			caps = append(caps, [2]string{c, ""}, [2]string{c, "--ulinkrpc-key bm90IHRoZSBrZXk="})
		}
	}
	contracts := "--contracts " + filepath.Join(rpcFixturesDir, "contracts")
	dir := t.TempDir()
	for _, tr := range []string{"tcp", "websocket", "kcp"} {
		path := filepath.Join(dir, "scale-"+tr+".pcapng")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (scenario.RPCScale{Frames: 4000, Conns: 4, Seed: 3, Transport: tr}).Generate(f, scenario.PCAPNG); err != nil {
			t.Fatal(err)
		}
		f.Close()
		caps = append(caps, [2]string{path, contracts}, [2]string{path, ""})
	}
	// Both protocols at once: Unturned messages held for an inference or a
	// resynchronisation hold the ULinkRPC records numbered after them.
	for _, mix := range [][2]string{{"usmn-basic", "tcp-json"}, {"usmn-midstream", "websocket-json"}, {"usmn-idbits-3", "kcp-json"}, {"vanilla", "tcp-midstream"}, {"usmn-midframe", "tcp-gzip"}} {
		caps = append(caps, [2]string{mixedCapture(t, "../../fixtures/captures/"+mix[0]+".pcapng", filepath.Join(rpcFixturesDir, mix[1]+".pcapng")), contracts})
	}
	// As runTables: --at cuts the reading at message N once it is final.
	lightStream := func(at int) session.Stream { return session.Stream{AsOf: at, Cut: at > 0} }
	fullStream := func(at int) session.Stream {
		return session.Stream{AsOf: at, Cut: at > 0, Settled: func(int) error { return nil }}
	}
	for _, c := range caps {
		cmds := []string{"tables", "tables --json", "tables --at 2", "tables --json --at 2"}
		if strings.Contains(c[0], "scale-") {
			cmds = append(cmds, "tables --at 1500", "tables --json --at 1500")
		}
		for _, cmd := range cmds {
			args := strings.TrimSpace(cmd + " " + c[1] + " " + c[0])
			t.Run(args, func(t *testing.T) {
				light, nl, fl := tablesWith(t, args, lightStream)
				full, nf, ff := tablesWith(t, args, fullStream)
				if nl == 0 || fl != 0 || nf != 0 || ff != nl {
					t.Fatalf("light reading: %d light and %d full sessions, full reading: %d and %d; want n > 0 and 0, 0 and n", nl, fl, nf, ff)
				}
				if light != full {
					t.Fatalf("light sessions print\n%s\nfull sessions print\n%s", light, full)
				}
				code, cli, errOut := run(t, nil, strings.Fields(args)...)
				if code != exitOK || cli != light {
					t.Fatalf("usmnscope %s: exit %d, stderr %q, prints\n%s\nwant\n%s", args, code, errOut, cli, light)
				}
			})
		}
	}
}
