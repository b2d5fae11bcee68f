package realnet

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The lab runs in a child process of the test binary, in a network
// namespace of its own: labEnv names its folder (config.json in,
// manifest.json, lab.pcap and one capture per connection out).
const (
	labEnv      = "USMNSCOPE_REALNET_LAB"
	requiredEnv = "USMNSCOPE_REALNET_REQUIRED"
)

// labCannotSetUp is the lab's exit status when the namespace could not be
// set up (no CAP_NET_ADMIN, nftables without kernel support, tcpdump
// unable to capture): the test skips, as without the tools.
const labCannotSetUp = 3

var errCannotSetUp = errors.New("cannot set up the lab's network")

func TestMain(m *testing.M) {
	if dir := os.Getenv(labEnv); dir != "" {
		if err := runLab(dir); err != nil {
			fmt.Fprintln(os.Stderr, "realnet lab:", err)
			if errors.Is(err, errCannotSetUp) {
				os.Exit(labCannotSetUp)
			}
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// labConfig is what the parent asks of the lab.
type labConfig struct {
	Seeds  int   `json:"seeds"`
	Losses []int `json:"losses"` // per cent
	Groups []string
}

// manifest is what the lab did: one record per connection.
type manifest struct {
	Packets int           `json:"packets"` // captured by tcpdump
	Dropped int           `json:"dropped"` // "packets dropped by kernel"
	Elapsed string        `json:"elapsed"`
	Conns   []*connRecord `json:"conns"`
}

// connRecord is one connection of the lab: what each side sent, in its
// send order, the pairs the conversation made, and its own capture.
type connRecord struct {
	Group  string `json:"group"`
	Loss   int    `json:"loss"` // per cent
	Seed   int    `json:"seed"`
	Client string `json:"client"`
	Server string `json:"server"`
	UDP    bool   `json:"udp"`
	File   string `json:"file"`
	// Sent is each direction's messages (dissect.Dir order: c2s, s2c):
	// the bytes a record's "hex" holds (Unturned: without the frame
	// header; ULinkRPC: the envelope).
	Sent [2][]sentMsg `json:"sent"`
	// Pairs are the ULinkRPC pairs as sent (asker, answer); Unturned
	// connections take theirs from the scenario's own capture.
	Pairs    [][2]msgRef `json:"pairs,omitempty"`
	Scenario string      `json:"scenario,omitempty"` // Unturned: the scenario TOML played
	Err      string      `json:"err,omitempty"`

	Millis  int64   `json:"ms"`      // how long it ran
	Redials int     `json:"redials"` // connections the server never accepted (dialTCP)
	Fins    [2]bool `json:"fins"`    // TCP: each direction's FIN is in the capture
	// WebSocket: messages longer than their end's write buffer (sent in
	// several frames), pings sent (some between a message's frames); KCP:
	// captured PUSH segments with frg > 0 (a message's fragments but its
	// last).
	Fragmented int `json:"fragmented,omitempty"`
	WSPings    int `json:"ws_pings,omitempty"`
	Packets    int `json:"packets"`   // in its capture
	Retrans    int `json:"retrans"`   // TCP segments or KCP PUSH segments carrying bytes or an sn captured before
	Reordered  int `json:"reordered"` // KCP PUSH segments captured after a higher sn
	Overlap    int `json:"overlap"`   // TCP retransmissions that also carry bytes not captured before
	Reseg      int `json:"reseg"`     // TCP retransmissions cut otherwise than any segment captured before at their sequence number
}

type sentMsg struct {
	Hex  string `json:"hex"`
	Kind string `json:"kind"`
}

// msgRef is a sent message: its direction and index in Sent[dir].
type msgRef struct {
	Dir int `json:"dir"`
	I   int `json:"i"`
}

func (c *connRecord) name() string { return fmt.Sprintf("%s/loss%d/seed%d", c.Group, c.Loss, c.Seed) }

// groups are the lab's kinds of connection, each on its own second
// address octet so that one nft rule per loss rate and group drops its
// packets.
var groups = []struct {
	name string
	port uint16
	udp  bool
	run  func(ctx context.Context, l *labGroup, c *connRecord, rng *rand.Rand) error
	// serve starts the group's server for one loss rate, if it has one
	// shared by its seeds.
	serve func(ctx context.Context, l *labGroup) error
}{
	{name: "unturned-tcp", port: 27016, run: runUnturned, serve: serveTCP},
	{name: "ulinkrpc-tcp", port: 20000, run: runRPCTCP, serve: serveTCP},
	{name: "ulinkrpc-ws", port: 20000, run: runRPCWS, serve: serveWS},
	{name: "ulinkrpc-kcp", port: 20000, udp: true, run: runRPCKCP, serve: serveKCP},
}

// labGroup is one group at one loss rate: its addresses and shared server.
type labGroup struct {
	gi     int
	loss   int
	server netip.AddrPort
	client netip.Addr
	state  any // the group's server (serve)
}

func groupAddr(gi, loss, host int) netip.Addr {
	return netip.AddrFrom4([4]byte{127, byte(gi + 1), byte(loss), byte(host)})
}

// clientPort is seed's client port: connections are told apart by it.
func clientPort(seed int) uint16 { return uint16(30000 + seed) }

func runLab(dir string) error {
	var cfg labConfig
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return err
	}
	start := time.Now()
	if err := setupNet(cfg.Losses); err != nil {
		return fmt.Errorf("%w: %v", errCannotSetUp, err)
	}
	pcap := filepath.Join(dir, "lab.pcap")
	td, err := startTcpdump(pcap)
	if err != nil {
		return fmt.Errorf("%w: %v", errCannotSetUp, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var man manifest
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 24) // connections at once
	for gi, g := range groups {
		if len(cfg.Groups) > 0 && !contains(cfg.Groups, g.name) {
			continue
		}
		for _, loss := range cfg.Losses {
			lg := &labGroup{gi: gi, loss: loss, server: netip.AddrPortFrom(groupAddr(gi, loss, 1), g.port), client: groupAddr(gi, loss, 2)}
			if g.serve != nil {
				if err := g.serve(ctx, lg); err != nil {
					td.stop()
					return fmt.Errorf("%s at %d%%: %w", g.name, loss, err)
				}
			}
			for seed := 1; seed <= cfg.Seeds; seed++ {
				c := &connRecord{Group: g.name, Loss: loss, Seed: seed, UDP: g.udp,
					Client: netip.AddrPortFrom(lg.client, clientPort(seed)).String(), Server: lg.server.String()}
				mu.Lock()
				man.Conns = append(man.Conns, c)
				mu.Unlock()
				wg.Go(func() {
					sem <- struct{}{}
					defer func() { <-sem }()
					rng := rand.New(rand.NewPCG(uint64(seed), uint64(gi*1000+loss)))
					t0 := time.Now()
					if err := g.run(ctx, lg, c, rng); err != nil {
						c.Err = err.Error()
					}
					c.Millis = time.Since(t0).Milliseconds()
				})
			}
		}
	}
	wg.Wait()
	// Let the last packets (ACKs, FINs) reach the capture. libpcap's
	// TPACKET_V3 ring hands packets to tcpdump a block at a time: a block
	// is handed over when full or after tcpdump's 1 s timeout, and the one
	// still filling when tcpdump is stopped is lost (the connections that
	// ended last lost their tails). --immediate-mode would hand over each
	// packet, at a cost that made tcpdump drop packets on a busy machine.
	time.Sleep(1500 * time.Millisecond)
	man.Packets, man.Dropped, err = td.stop()
	if err != nil {
		return err
	}
	if err := splitCapture(pcap, dir, man.Conns); err != nil {
		return err
	}
	man.Elapsed = time.Since(start).Round(time.Millisecond).String()
	out, err := json.MarshalIndent(&man, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "manifest.json"), out, 0o644)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// setupNet brings lo up with an Ethernet-sized MTU (so that TCP cuts
// segments as on a real link) and adds the nftables random drops: for
// each loss rate, half of it on the output hook (lost before the capture
// sees it) and half on the input hook (captured, then lost).
func setupNet(losses []int) error {
	cmds := [][]string{
		{"ip", "link", "set", "lo", "up"},
		{"ip", "link", "set", "lo", "mtu", "1500"},
		{"nft", "add", "table", "inet", "realnet"},
		{"nft", "add", "chain", "inet", "realnet", "out", "{ type filter hook output priority 0; }"},
		{"nft", "add", "chain", "inet", "realnet", "in", "{ type filter hook input priority 0; }"},
	}
	for gi := range groups {
		for _, loss := range losses {
			if loss == 0 {
				continue
			}
			// loss per cent = 10*loss per mille, half on each hook.
			half := strconv.Itoa(loss * 5)
			net := fmt.Sprintf("127.%d.%d.0/24", gi+1, loss)
			for _, chain := range []string{"out", "in"} {
				cmds = append(cmds, []string{"nft", "add", "rule", "inet", "realnet", chain, "ip", "daddr", net, "numgen", "random", "mod", "1000", "<", half, "drop"})
			}
		}
	}
	for _, c := range cmds {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(c, " "), err, out)
		}
	}
	return nil
}

type tcpdump struct {
	cmd    *exec.Cmd
	stderr *bufio.Reader
	lines  chan string
}

// startTcpdump captures lo to path and returns once tcpdump listens.
func startTcpdump(path string) (*tcpdump, error) {
	cmd := exec.Command("tcpdump", "-i", "lo", "-n", "-s", "0", "-B", "65536", "-Z", "root", "-w", path, "ip")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	td := &tcpdump{cmd: cmd, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			td.lines <- sc.Text()
		}
		close(td.lines)
	}()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-td.lines:
			if !ok {
				cmd.Wait()
				return nil, errors.New("tcpdump ended before it listened")
			}
			if strings.Contains(l, "listening on") {
				return td, nil
			}
		case <-timeout:
			cmd.Process.Kill()
			cmd.Wait()
			return nil, errors.New("tcpdump did not say it listens within 10 s")
		}
	}
}

var (
	capturedRe = regexp.MustCompile(`^(\d+) packets? captured`)
	droppedRe  = regexp.MustCompile(`^(\d+) packets? dropped by kernel`)
)

// stop ends tcpdump and returns what it says it captured and dropped.
func (td *tcpdump) stop() (captured, dropped int, err error) {
	td.cmd.Process.Signal(syscall.SIGINT)
	var rest []string
	for l := range td.lines {
		rest = append(rest, l)
		if m := capturedRe.FindStringSubmatch(l); m != nil {
			captured, _ = strconv.Atoi(m[1])
		}
		if m := droppedRe.FindStringSubmatch(l); m != nil {
			dropped, _ = strconv.Atoi(m[1])
		}
	}
	if werr := td.cmd.Wait(); werr != nil {
		return captured, dropped, fmt.Errorf("tcpdump: %v: %s", werr, strings.Join(rest, "; "))
	}
	return captured, dropped, nil
}
