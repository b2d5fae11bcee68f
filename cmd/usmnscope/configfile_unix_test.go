//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHostileConfigFiles: schema and profile files and contract folders
// that are FIFOs, devices, symlinks leaving the folder or too large are one
// clear error naming the file, at once (a FIFO blocked forever before, a
// symlink to /dev/zero read without end; issue 29 point 4).
func TestHostileConfigFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.toml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "zero.toml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, []byte(strings.Repeat("#\n", 3<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	capture := fixture(t, "usmn-basic.pcapng")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"dump", "--schema", fifo, capture}, "schema: " + fifo + ": not a regular file (p---------)"},
		{[]string{"dump", "--schema", zero, capture}, "schema: " + zero + ": not a regular file (Dc---------)"},
		{[]string{"dump", "--schema", dir, capture}, "schema: " + dir + ": not a regular file (d---------)"},
		{[]string{"dump", "--profile", fifo, capture}, "profile: " + fifo + ": not a regular file (p---------)"},
		{[]string{"dump", "--profile", zero, capture}, "profile: " + zero + ": not a regular file (Dc---------)"},
		{[]string{"dump", "--profile", big, capture}, "profile: " + big + ": larger than 1048576 bytes"},
	} {
		code, _, errs := run(t, nil, c.args...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v = exit %d, %q; want exit 1, %q", c.args, code, errs, c.want)
		}
	}

	contracts := func(name string) string {
		d := filepath.Join(dir, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	cfifo := contracts("cfifo")
	if err := syscall.Mkfifo(filepath.Join(cfifo, "p.cs"), 0o644); err != nil {
		t.Fatal(err)
	}
	czero := contracts("czero")
	if err := os.Symlink("/dev/zero", filepath.Join(czero, "z.cs")); err != nil {
		t.Fatal(err)
	}
	cout := contracts("cout")
	outside := filepath.Join(dir, "outside.cs")
	if err := os.WriteFile(outside, []byte("[RpcService(1)] interface IA {}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(cout, "o.cs")); err != nil {
		t.Fatal(err)
	}
	cin := contracts("cin")
	if err := os.WriteFile(filepath.Join(cin, "real.txt"), []byte("[RpcService(1)] interface IA {}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.txt", filepath.Join(cin, "in.cs")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{cfifo, "ulinkrpc contracts: p.cs: not a regular file (p---------)"},
		{czero, "ulinkrpc contracts: z.cs: "},
		{cout, "ulinkrpc contracts: o.cs: "},
	} {
		_, err := readContracts(c.dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("readContracts(%s) = %v; want %q", filepath.Base(c.dir), err, c.want)
		}
	}
	if c, err := readContracts(cin); err != nil || len(c.Services) != 1 {
		t.Errorf("readContracts(a symlink within the folder) = %v; want its service read", err)
	}
}
