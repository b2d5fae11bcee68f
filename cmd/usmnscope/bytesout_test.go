package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Issue 16 defect 8 ("no output gives a message's bytes") and "Bytes out":
// dump --json's "hex" key, dump -V's hex line and dump -x's tshark-style
// block all give each message's bytes, and what they give pastes into
// bits as the same message.

type hexRecord struct {
	N    int    `json:"n"`
	Dir  string `json:"dir"`
	Len  int    `json:"len"`
	Hex  string `json:"hex"`
	Msg  string `json:"msg"`
	Enum struct {
		Value   int  `json:"value"`
		Widened bool `json:"widened"`
	} `json:"enum"`
}

func jsonRecords(t *testing.T, capture string) []hexRecord {
	t.Helper()
	code, out, errOut := run(t, nil, "dump", "--json", capture)
	if code != exitOK {
		t.Fatalf("dump --json %s: exit %d, %s", capture, code, errOut)
	}
	var recs []hexRecord
	for line := range strings.Lines(out) {
		var r hexRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("dump --json line %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		t.Fatalf("dump --json %s printed no records", capture)
	}
	return recs
}

func TestDumpJSONHexPastesIntoBits(t *testing.T) {
	for _, name := range []string{"usmn-basic.pcapng", "two-conns.pcapng"} {
		for _, r := range jsonRecords(t, fixture(t, name)) {
			data, err := hex.DecodeString(r.Hex)
			if err != nil || len(data) != r.Len || r.Hex != strings.ToLower(r.Hex) {
				t.Errorf("%s #%d: hex %q = %d bytes, %v; want %d bytes of lowercase hex", name, r.N, r.Hex, len(data), err, r.Len)
				continue
			}
			args := []string{"bits", "--json", "--dir", r.Dir, fmt.Sprintf("--widened=%t", r.Enum.Widened), r.Hex}
			code, out, errOut := run(t, nil, args...)
			var b hexRecord
			if code != exitOK || json.Unmarshal([]byte(out), &b) != nil {
				t.Errorf("%s #%d: %v = exit %d, %q, %q", name, r.N, args, code, out, errOut)
				continue
			}
			if b.Msg != r.Msg || b.Enum.Value != r.Enum.Value || b.Hex != r.Hex {
				t.Errorf("%s #%d: %v = %s enum %d hex %s; want %s enum %d hex %s", name, r.N, args, b.Msg, b.Enum.Value, b.Hex, r.Msg, r.Enum.Value, r.Hex)
			}
		}
	}
}

func TestDumpVerboseHasHex(t *testing.T) {
	c := fixture(t, "usmn-basic.pcapng")
	recs := jsonRecords(t, c)
	_, out, _ := run(t, nil, "dump", "-V", c)
	var got []string
	for line := range strings.Lines(out) {
		if h, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "    hex: "); ok {
			got = append(got, h)
		}
	}
	if len(got) != len(recs) {
		t.Fatalf("dump -V printed %d hex lines; want one per message (%d)", len(got), len(recs))
	}
	for i, r := range recs {
		if got[i] != r.Hex {
			t.Errorf("dump -V #%d hex = %s; want %s (dump --json)", r.N, got[i], r.Hex)
		}
	}
}

// TestDumpX reads dump -x back: after each message line, rows of offset,
// hex and ASCII, then an empty line; the bytes are the JSON record's.
func TestDumpX(t *testing.T) {
	c := fixture(t, "usmn-basic.pcapng")
	recs := jsonRecords(t, c)
	code, out, errOut := run(t, nil, "dump", "-x", c)
	if code != exitOK {
		t.Fatalf("dump -x: exit %d, %s", code, errOut)
	}
	var blocks [][]byte
	var cur []byte
	in := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "" && in:
			blocks, cur, in = append(blocks, cur), nil, false
		case len(line) > 6 && line[4:6] == "  " && isHex(line[:4]):
			var off int
			fmt.Sscanf(line[:4], "%x", &off)
			if off != len(cur) {
				t.Fatalf("dump -x row %q: offset %d; want %d", line, off, len(cur))
			}
			row, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(line[6:6+48]), " ", ""))
			if err != nil {
				t.Fatalf("dump -x row %q: %v", line, err)
			}
			if ascii := line[56:]; len(ascii) != len(row) {
				t.Errorf("dump -x row %q: ASCII column %q for %d bytes", line, ascii, len(row))
			}
			cur, in = append(cur, row...), true
		}
	}
	if len(blocks) != len(recs) {
		t.Fatalf("dump -x printed %d byte blocks; want one per message (%d)", len(blocks), len(recs))
	}
	for i, r := range recs {
		if got := hex.EncodeToString(blocks[i]); got != r.Hex {
			t.Errorf("dump -x #%d = %s; want %s", r.N, got, r.Hex)
		}
	}
	if code, _, errOut := run(t, nil, "dump", "-x", "--json", c); code != exitUsage || !strings.Contains(errOut, "exclude each other") {
		t.Errorf("dump -x --json = exit %d, %q; want a usage error", code, errOut)
	}
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

// TestHexASCII holds dump -x's layout to tshark -x's: "%04x", two spaces,
// sixteen "xx " columns, two spaces, ASCII with '.' for anything not
// printable (so an escape byte never reaches the terminal).
func TestHexASCII(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"8c0000627965", "0000  8c 00 00 62 79 65" + strings.Repeat(" ", 33) + "...bye\n\n"},
		{"1b5b324a" + strings.Repeat("41", 13), "0000  1b 5b 32 4a 41 41 41 41 41 41 41 41 41 41 41 41   .[2JAAAAAAAAAAAA\n" +
			"0010  41" + strings.Repeat(" ", 45) + "   A\n\n"},
	}
	for _, tt := range tests {
		data, _ := hex.DecodeString(tt.in)
		if got := hexASCII(data); got != tt.want {
			t.Errorf("hexASCII(%s) =\n%q\nwant\n%q", tt.in, got, tt.want)
		}
	}
}

// TestBitsWidthHint is issue 16 defect 9: `bits 51 02` read vanilla is a
// ReadyToConnect, but read widened the USMN invoke it was; bits says so on
// stderr and still prints what was asked.
func TestBitsWidthHint(t *testing.T) {
	tests := []struct {
		args []string
		hint string // substring of stderr; "" = no hint
	}{
		{[]string{"bits", "51", "02"}, "--widened"},
		{[]string{"bits", "--json", "51", "02"}, "InvokeMessageListener"},
		{[]string{"bits", "--widened", "51", "02"}, ""},
		{[]string{"bits", "--dir", "s2c", "8c", "00", "00", "62", "79", "65"}, ""},
		// Read widened, a vanilla Rejected is no known message.
		{[]string{"bits", "--dir", "s2c", "--widened", "6a7000332e32362e332e34"}, "without --widened"},
	}
	for _, tt := range tests {
		code, out, errOut := run(t, nil, tt.args...)
		if code != exitOK || out == "" {
			t.Errorf("%v = exit %d, stdout %q; want 0 and the decoding", tt.args, code, out)
		}
		if tt.hint == "" && errOut != "" || tt.hint != "" && !strings.Contains(errOut, tt.hint) {
			t.Errorf("%v: stderr %q; want a hint containing %q", tt.args, errOut, tt.hint)
		}
	}
	// The hint does not change what was asked: read vanilla, still vanilla.
	if _, out, _ := run(t, nil, "bits", "51", "02"); !strings.Contains(out, "ReadyToConnect") {
		t.Errorf("bits 51 02 printed %q; want the vanilla decoding that was asked for", out)
	}
}
