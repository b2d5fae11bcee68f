package realnet

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheckConnCatches feeds checkConn a good decoding of a testdata
// capture with one thing broken at a time: each must be a problem, and
// only the two symptoms of branch exact's defects are "known".
func TestCheckConnCatches(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "ulinkrpc-ws-reseg.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c connRecord
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	good, err := decodeFile(filepath.Join("testdata", c.File))
	if err != nil {
		t.Fatal(err)
	}
	if p := checkConn(&c, good, c.Pairs); p != nil {
		t.Fatalf("checkConn(good) = %q; want no problem", p.text)
	}
	// firstOf is the index of the first record of dir after from.
	firstOf := func(d *decoded, dir string, from int) int {
		for i := from; i < len(d.recs); i++ {
			if d.recs[i].Dir == dir {
				return i
			}
		}
		t.Fatalf("no %s record after %d", dir, from)
		return -1
	}
	clone := func() *decoded {
		d := *good
		d.recs = slices.Clone(good.recs)
		d.findings = slices.Clone(good.findings)
		return &d
	}
	renumber := func(d *decoded) {
		for i := range d.recs {
			d.recs[i].N = i + 1
		}
	}
	// swapSame swaps the first two records of dir, keeping each record's
	// place in the capture-wide numbering.
	swapSame := func(d *decoded, dir string) {
		i := firstOf(d, dir, 0)
		j := firstOf(d, dir, i+1)
		d.recs[i].Hex, d.recs[j].Hex = d.recs[j].Hex, d.recs[i].Hex
	}
	tests := []struct {
		name   string
		udp    bool
		break_ func(d *decoded)
		known  string // the known-defect text's start, "" for a failure
	}{
		{"a message missing", false, func(d *decoded) {
			i := firstOf(d, "c2s", 3)
			d.recs = slices.Delete(d.recs, i, i+1)
			renumber(d)
		}, ""},
		{"a message twice", false, func(d *decoded) {
			i := firstOf(d, "s2c", 3)
			d.recs = slices.Insert(d.recs, i, d.recs[i])
			renumber(d)
		}, ""},
		{"wrong bytes", false, func(d *decoded) { d.recs[4].Hex = strings.Repeat("0", len(d.recs[4].Hex)) }, ""},
		{"out of order over TCP", false, func(d *decoded) { swapSame(d, "s2c") }, ""},
		{"out of order over KCP", true, func(d *decoded) { swapSame(d, "s2c") }, "needs fix from branch exact: KCP"},
		{"numbers running backwards", false, func(d *decoded) { d.recs[2].N, d.recs[3].N = d.recs[3].N, d.recs[2].N }, ""},
		{"a pair lost", false, func(d *decoded) {
			for i := range d.recs {
				if d.recs[i].Pair != 0 {
					d.recs[i].Pair = 0
					return
				}
			}
		}, ""},
		{"an error finding", false, func(d *decoded) {
			d.recs[1].Expert = append(d.recs[1].Expert, struct {
				Severity string `json:"severity"`
				Group    string `json:"group"`
				Text     string `json:"text"`
			}{"error", "malformed", "broken"})
		}, ""},
		{"the re-segmentation crash", false, func(d *decoded) {
			d.findings = append(d.findings, "capture: usmnscope bug: runtime error: index out of range [0] with length 0; decoding stopped here (please report it with the capture)")
		}, "needs fix from branch exact: the crash"},
		{"another usmnscope bug", false, func(d *decoded) {
			d.findings = append(d.findings, "capture: usmnscope bug: runtime error: invalid memory address; decoding stopped here")
		}, ""},
	}
	for _, tt := range tests {
		d := clone()
		tt.break_(d)
		cc := c
		cc.UDP = tt.udp
		p := checkConn(&cc, d, c.Pairs)
		switch {
		case p == nil:
			t.Errorf("checkConn(%s) = no problem; want one", tt.name)
		case tt.known == "" && p.known != "":
			t.Errorf("checkConn(%s) = known %q; want a failure", tt.name, p.known)
		case tt.known != "" && !strings.HasPrefix(p.known, tt.known):
			t.Errorf("checkConn(%s) = known %q (%s); want %q…", tt.name, p.known, p.text, tt.known)
		}
	}
}
