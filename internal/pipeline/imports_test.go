package pipeline_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/usmnscope/usmnscope/"

// floors ranks the module's packages: data flows one way, from capture
// through the protocol codecs and the session state to the views and the
// CLI (README "Layout"), so a package may import only packages on a lower
// floor. capture is beside the codecs, not under them: it knows no
// protocol, and only internal/pipeline and cmd join the two. A package
// missing here fails the test, so a new room has to be placed.
var floors = map[string]float64{
	"netpak":              0,
	"internal/termsafe":   0,
	"internal/digits":     -1, // integers, padded digits and hex written straight into a buffer: the one spelling of numbers (issue 28); no module imports
	"internal/jsontime":   0,  // outputs.md "time", one spelling for the host and every protocol: over internal/digits only
	"internal/tomlcap":    0,
	"internal/gctune":     0,   // the collector's fixed headroom (moved from cmd): no module imports
	"internal/profiling":  0,   // the CPU and allocation profiles the environment asks for (moved from cmd)
	"internal/buildinfo":  0,   // --version's text (moved from cmd)
	"internal/usage":      0,   // the command line's friendly usage errors (moved from cmd): cobra's, no module imports
	"internal/config":     0.5, // the config file (issue 30): only tomlcap, which bounds its shape
	"stats":               0,   // the exact percentiles, jitter and rates (issue 26): no module imports; dissect, rpc and session use it
	"internal/enum":       -1,
	"internal/hugepage":   -1, // large pointer-free memory in huge pages (issue 28): no module imports
	"capture":             1,
	"merge":               1.5, // several captures as one source (issue 27): over capture and dissect, knows no protocol
	"dissect":             1,
	"decode":              1.5, // the protocol seam (Protocol, Conn, Record, Node, the registry): over dissect, under every codec
	"decode/transport/lp": 1.5, // the length-prefixed framer with resynchronisation both codecs ride on: over dissect, under them
	"unturned":            2,
	"ulinkrpc":            2,
	"unturned/infer":      2.5, // the profile search (issue 23): over the Unturned codec, reads the host's decode through its own Decoded
	"unturned/pair":       2.5, // Unturned's pairing of pings and listener-ID requests (issue 23): over the codec, under session
	"unturned/payload":    2.5, // Unturned's payload decoding with the payload schemas (issue 23): over the codec and schema, under session
	"unturned/listeners":  2.5, // Unturned's listener-ID tables (issue 23): over the codec, under session, which keeps their checkpoints
	"unturned/track":      3,   // Unturned's per-connection state (issue 23): framing, handshake, inferences, tables and pairing over the codec, fed by session through decode.Feed
	"unturned/feed":       4.5, // Unturned's side of the host's decode (issue 23): the profile search's adapter over session (Decoded, Score)
	"schema":              2,
	"rpc":                 3,
	"session":             4,   // hosts the registered protocols' records (decode) in the capture-wide order; depends on no ULinkRPC package (hostOnly)
	"rpc/feed":            4.5, // ULinkRPC's side of the feed (issue 23): takes capture's events, opens its sessions on the index; the router reaches it through register.go only
	"filter":              5,
	"stats/report":        5, // stats' attribution over the host's records (issue 26)
	"export":              6, // rows of the records dump --json builds, as Parquet
	"render":              6, // the text outputs, from the session's records (and the filter's selection)
	"scenario":            5,
	"views/frame":         6,
	"unturned/fake":       7.5, // synthetic decoded Unturned captures for the views' tests (moved from views/fake): over views/fake's neutral Source
	"views":               8,
	"internal/pipeline":   9,  // the one decode builder (Open) and the feed
	"internal/tuifeed":    10, // the TUI's feeder: runs a decode, tells the UI
	"internal/headless":   10, // live without the TUI: runs a decode, prints its totals
	"cmd/usmnscope":       11,
	"internal/realnet":    12, // tests only: the real-network lab may use any room

	// The transports a protocol composes beside decode/transport/lp (issue
	// 23): what they share, and WebSocket (over it and over lp's
	// resynchronisation verdicts) and KCP over it, under the codecs.
	"decode/transport":           1.5,
	"decode/transport/websocket": 1.75,
	"decode/transport/kcp":       1.75,
}

// protocols are the packages that know a protocol; capture must import none
// of them.
var protocols = []string{"dissect", "unturned", "unturned/infer", "unturned/pair", "unturned/payload", "unturned/listeners", "unturned/track", "unturned/feed", "ulinkrpc", "schema", "session", "rpc", "rpc/feed", "filter", "netpak"}

// hostOnly are the protocol packages session must not depend on (issue
// 23: a neutral host): ULinkRPC's, which it hosts through decode's
// interfaces. Unturned is still hosted natively this round.
var hostOnly = []string{"rpc", "rpc/feed", "ulinkrpc"}

func floor(pkg string) (float64, bool) {
	if f, ok := floors[pkg]; ok {
		return f, true
	}
	if strings.HasPrefix(pkg, "views/") { // the panes: above frame, below the root model
		return 7, true
	}
	if strings.HasPrefix(pkg, "bench/") { // yardsticks, not product code: may use any room
		return 12, true
	}
	return 0, false
}

type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// TestImportGraph reads the import graph with `go list -deps -json` and
// fails on every import that runs against the flow.
func TestImportGraph(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH: cannot list the import graph")
	}
	cmd := exec.Command("go", "list", "-deps", "-json", module+"...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	seen := 0
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name, ok := strings.CutPrefix(p.ImportPath, module)
		if !ok {
			continue
		}
		seen++
		from, ok := floor(name)
		if !ok {
			t.Errorf("%s is not placed on a floor of the import graph (imports_test.go)", name)
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			to, ok := floor(dep)
			if ok && to >= from {
				t.Errorf("%s imports %s: an import against the flow (floor %v → %v)", name, dep, from, to)
			}
		}
		// merge (several captures as one source) reads capture's events and
		// names directions with dissect's Dir: no codec. rpc/feed is the
		// ULinkRPC side of the pipeline's feed: it takes the events the
		// router hands it, and capture imports none of it.
		joins := name == "internal/pipeline" || name == "cmd/usmnscope" || name == "internal/tuifeed" || name == "internal/headless" || name == "merge" || name == "rpc/feed"
		if hasDep(p.Deps, "capture") && !joins && name != "capture" {
			t.Errorf("%s depends on capture: only internal/pipeline and cmd join capture to the protocols", name)
		}
		if name == "session" {
			for _, proto := range hostOnly {
				if hasDep(p.Deps, proto) {
					t.Errorf("session depends on %s: the host reaches ULinkRPC through decode's interfaces only (issue 23)", proto)
				}
			}
		}
		if name == "capture" {
			for _, proto := range protocols {
				if hasDep(p.Deps, proto) {
					t.Errorf("capture depends on %s: capture knows no protocol", proto)
				}
			}
		}
	}
	if seen < 10 {
		t.Fatalf("go list listed %d of the module's packages; the graph was not read", seen)
	}
}

// named are the files of this package that may import a protocol's
// packages (issue 23: a neutral host): register.go, the one registration
// of the protocols. The router (route.go, side.go, proto.go), the feed
// loop and the decode's building (load.go, open.go) are not among them:
// they reach ULinkRPC through register.go's side and Config, and Unturned
// natively through session. A new file that names a protocol fails.
var named = map[string]bool{
	"register.go": true,
}

// TestPipelineNamesProtocols fails on a production file of this package
// outside named that imports a protocol's package, and on a named file
// that no longer does (so the list only shrinks).
func TestPipelineNamesProtocols(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		names := false
		for _, imp := range af.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			for _, proto := range []string{"rpc", "ulinkrpc", "unturned"} {
				if path == module+proto || strings.HasPrefix(path, module+proto+"/") {
					names = true
				}
			}
		}
		switch {
		case names && !named[f]:
			t.Errorf("%s imports a protocol's package: only register.go names the protocols (issue 23)", f)
		case !names && named[f]:
			t.Errorf("%s names no protocol any more: take it off the list (named, imports_test.go)", f)
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d files; the package was not read", checked)
	}
}

// neutralRooms are the rooms outside the protocols' folders whose
// production files name no protocol today (issue 23): none imports rpc,
// ulinkrpc, unturned or a package under them, nor reads a `.RPC`. A
// protocol's part they need comes through decode's interfaces and the
// registry (decode.Protocol), or lives in the protocol's folder
// (unturned/fake's synthetic captures for the views' tests).
// decode/transport holds the transports several protocols compose (lp,
// websocket, kcp): each protocol's words come through their Configs.
var neutralRooms = []string{"views", "render", "filter", "export", "stats", "decode/transport"}

// TestNeutralRoomsNameNoProtocol fails on a production file of a room of
// neutralRooms (and the folders below it) that names a protocol.
func TestNeutralRoomsNameNoProtocol(t *testing.T) {
	checked := 0
	for _, room := range neutralRooms {
		checked += walkProduction(t, filepath.Join("..", "..", room), func(path string, b []byte) {
			af, err := parser.ParseFile(token.NewFileSet(), path, b, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				p := strings.Trim(imp.Path.Value, `"`)
				for _, proto := range []string{"rpc", "ulinkrpc", "unturned"} {
					if p == module+proto || strings.HasPrefix(p, module+proto+"/") {
						t.Errorf("%s imports %s: %s names no protocol (issue 23)", path, p, room)
					}
				}
			}
			if bytes.Contains(b, []byte(".RPC.")) || bytes.Contains(b, []byte(".RPC ")) || bytes.Contains(b, []byte(".RPC)")) {
				t.Errorf("%s reads a .RPC: %s names no protocol (issue 23)", path, room)
			}
		})
	}
	if checked < 50 {
		t.Fatalf("checked %d files; the rooms were not walked", checked)
	}
}

// walkProduction calls visit with each production Go file below root (no
// test, nothing in testdata or a hidden folder) and its bytes, and returns
// how many it visited.
func walkProduction(t *testing.T, root string, visit func(path string, b []byte)) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		visit(path, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func hasDep(deps []string, name string) bool {
	for _, d := range deps {
		if d == module+name {
			return true
		}
	}
	return false
}

// maxLines is the longest a production source file may be (issue 12): a
// file past it holds more than one concern.
const maxLines = 700

// TestFileLengths fails on every production Go file of the module longer
// than maxLines.
func TestFileLengths(t *testing.T) {
	checked := walkProduction(t, filepath.Join("..", ".."), func(path string, b []byte) {
		if n := bytes.Count(b, []byte("\n")); n > maxLines {
			t.Errorf("%s: %d lines; a production file holds at most %d", path, n, maxLines)
		}
	})
	if checked < 50 {
		t.Fatalf("checked %d files; the tree was not walked", checked)
	}
}

// maxCmdLines bounds cmd/usmnscope's production lines (issue 23): the
// commands turn flags into options and call the packages; logic that
// grows there belongs in a package.
const maxCmdLines = 2500

// TestCmdLines fails when cmd/usmnscope's production Go files hold more
// than maxCmdLines lines together.
func TestCmdLines(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "cmd", "usmnscope", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n += bytes.Count(b, []byte("\n"))
	}
	if n == 0 {
		t.Fatal("no production file in cmd/usmnscope: the folder was not read")
	}
	if n > maxCmdLines {
		t.Errorf("cmd/usmnscope holds %d production lines; at most %d (issue 23): move the logic into a package", n, maxCmdLines)
	}
}
