package realnet

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// labSeeds is how many connections the lab runs per group and loss rate.
const labSeeds = 20

var labLosses = []int{0, 2, 5, 10}

// unavailable says why the lab cannot run here, or "".
func unavailable() string {
	if os.Geteuid() != 0 {
		return "needs root (a network namespace, nftables, tcpdump on lo)"
	}
	for _, tool := range []string{"ip", "nft", "tcpdump"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Sprintf("%s is not installed (apt-get install iproute2 nftables tcpdump; .ci/run does)", tool)
		}
	}
	return ""
}

// skipOrFail skips with why, or fails when USMNSCOPE_REALNET_REQUIRED is
// set (.ci/run).
func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv(requiredEnv) != "" {
		t.Fatalf("%s is set but the real-network lab cannot run: %s", requiredEnv, why)
	}
	t.Skip(why)
}

// runLabChild runs the lab in a child process in a new network namespace
// and returns its manifest.
func runLabChild(t *testing.T, cfg labConfig) (*manifest, string) {
	t.Helper()
	if why := unavailable(); why != "" {
		skipOrFail(t, why)
	}
	dir := t.TempDir()
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), labEnv+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	out, err := cmd.CombinedOutput()
	if err != nil {
		if cmd.ProcessState == nil {
			skipOrFail(t, fmt.Sprintf("cannot start a process in a new network namespace: %v", err))
		}
		if cmd.ProcessState.ExitCode() == labCannotSetUp {
			skipOrFail(t, strings.TrimSpace(string(out)))
		}
		t.Fatalf("the lab failed: %v\n%s", err, out)
	}
	mb, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatalf("the lab wrote no manifest: %v\n%s", err, out)
	}
	var man manifest
	if err := json.Unmarshal(mb, &man); err != nil {
		t.Fatal(err)
	}
	return &man, dir
}

// tally is one group's figures at one loss rate, for the note.
type tally struct {
	conns, sent, packets, decoded, retrans, reseg, overlap, reordered, known, failed int
	pairs, fragmented, wsPings                                                       int
}

// TestRealNet runs the lab (doc.go) and checks every connection's
// decoding against what its sides sent: sub-tests group/lossN/seedN.
func TestRealNet(t *testing.T) {
	seeds := labSeeds
	if testing.Short() {
		seeds = 3
	}
	cfg := labConfig{Seeds: seeds, Losses: labLosses}
	// For a closer look at one group: USMNSCOPE_REALNET_GROUPS=ulinkrpc-kcp
	// USMNSCOPE_REALNET_SEEDS=100.
	if g := os.Getenv("USMNSCOPE_REALNET_GROUPS"); g != "" {
		cfg.Groups = strings.Split(g, ",")
	}
	if n, err := strconv.Atoi(os.Getenv("USMNSCOPE_REALNET_SEEDS")); err == nil && n > 0 {
		cfg.Seeds = n
	}
	man, dir := runLabChild(t, cfg)
	// tcpdump drops packets when the machine is too busy for it: the
	// captures cannot be judged then; the lab runs once more.
	if man.Dropped > 0 {
		t.Logf("tcpdump dropped %d of %d packets; running the lab again", man.Dropped, man.Packets)
		if man, dir = runLabChild(t, cfg); man.Dropped > 0 {
			t.Fatalf("tcpdump dropped %d of %d packets: the captures are incomplete and cannot be judged", man.Dropped, man.Packets)
		}
	}
	t.Logf("lab: %d connections, %d packets captured, %d dropped by the kernel, %s", len(man.Conns), man.Packets, man.Dropped, man.Elapsed)
	tallies := map[string]*tally{}
	var order []string
	for _, c := range man.Conns {
		key := fmt.Sprintf("%s loss %2d%%", c.Group, c.Loss)
		tl := tallies[key]
		if tl == nil {
			tl = &tally{}
			tallies[key] = tl
			order = append(order, key)
		}
		t.Run(c.name(), func(t *testing.T) {
			tl.conns++
			tl.sent += len(c.Sent[0]) + len(c.Sent[1])
			tl.packets += c.Packets
			tl.retrans += c.Retrans
			tl.reordered += c.Reordered
			tl.overlap += c.Overlap
			tl.reseg += c.Reseg
			tl.fragmented += c.Fragmented
			tl.wsPings += c.WSPings
			if c.Err != "" {
				keep(t, dir, c)
				tl.failed++
				t.Fatalf("the connection failed in the lab: %s", c.Err)
			}
			if !c.UDP && (!c.Fins[0] || !c.Fins[1]) {
				keep(t, dir, c)
				tl.failed++
				t.Fatalf("the capture lacks the connection's end (FIN captured: c2s %v, s2c %v): the lab's capture is incomplete", c.Fins[0], c.Fins[1])
			}
			d, err := decodeFile(filepath.Join(dir, c.File))
			if err != nil {
				tl.failed++
				t.Fatalf("decode %s: %v", c.File, err)
			}
			tl.decoded += len(d.recs)
			want := c.Pairs
			if c.Scenario != "" {
				if want, err = scenarioPairs(c, dir); err != nil {
					tl.failed++
					t.Fatal(err)
				}
			}
			if os.Getenv("USMNSCOPE_REALNET_KEEP_ALL") != "" {
				keep(t, dir, c)
			}
			tl.pairs += len(want)
			if p := checkConn(c, d, want); p != nil {
				keep(t, dir, c)
				if p.known != "" {
					tl.known++
					t.Skipf("%s: %s", p.known, p.text)
				}
				tl.failed++
				t.Fatalf("%s", p.text)
			}
			if diff := pathsDiffer(filepath.Join(dir, c.File)); diff != "" {
				keep(t, dir, c)
				tl.failed++
				t.Fatal(diff)
			}
		})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-26s %5s %6s %7s %7s %6s %7s %6s %7s %7s %6s %6s %5s %6s\n", "group", "conns", "sent", "packets", "decoded", "pairs", "retrans", "reseg", "overlap", "reorder", "frag", "wsping", "known", "failed")
	for _, k := range order {
		tl := tallies[k]
		fmt.Fprintf(&b, "%-26s %5d %6d %7d %7d %6d %7d %6d %7d %7d %6d %6d %5d %6d\n", k, tl.conns, tl.sent, tl.packets, tl.decoded, tl.pairs, tl.retrans, tl.reseg, tl.overlap, tl.reordered, tl.fragmented, tl.wsPings, tl.known, tl.failed)
	}
	t.Logf("per group and loss rate (sent and decoded: messages; packets: captured; pairs: pairs checked (ULinkRPC request/response and keep-alive as sent; Unturned pings and listener-ID requests as the scenario's own capture pairs them); retrans: TCP segments or KCP PUSH segments carrying bytes or an sn captured before; reseg: of those, TCP retransmissions cut otherwise than the segment first captured at their sequence number; overlap: TCP retransmissions that also carry bytes not captured before; reorder: KCP PUSH segments after a higher sn; frag: WebSocket messages longer than their end's write buffer, sent in several frames, and KCP PUSH segments captured with frg > 0; wsping: WebSocket pings sent, some between a message's frames; known: skipped for a defect branch exact fixes):\n%s", b.String())
}

// keep copies a failing connection's capture and manifest entry to
// $USMNSCOPE_REALNET_KEEP, when set, to make a regression capture of it
// (every connection's with USMNSCOPE_REALNET_KEEP_ALL set too).
func keep(t *testing.T, dir string, c *connRecord) {
	to := os.Getenv("USMNSCOPE_REALNET_KEEP")
	if to == "" {
		return
	}
	os.MkdirAll(to, 0o755)
	if b, err := os.ReadFile(filepath.Join(dir, c.File)); err == nil {
		os.WriteFile(filepath.Join(to, c.File), b, 0o644)
	}
	if b, err := json.MarshalIndent(c, "", " "); err == nil {
		os.WriteFile(filepath.Join(to, strings.TrimSuffix(c.File, ".pcap")+".json"), b, 0o644)
	}
	t.Logf("kept %s in %s", c.File, to)
}
