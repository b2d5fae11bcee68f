package capture

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// repoRoot walks up from the package directory to go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package directory")
		}
		dir = parent
	}
}

// TestCorpus opens every capture of the shared tcpdump corpus (none of them
// Unturned, many malformed) and reads it to the end or to its first
// unrecoverable error, with no panic and no hang.
func TestCorpus(t *testing.T) {
	dir := os.Getenv("USMNSCOPE_CORPUS")
	if dir == "" {
		dir = filepath.Join(repoRoot(t), "..", "shared", "corpus", "tcpdump")
	}
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("needs a corpus of real-world captures (tcpdump's test captures, many malformed) in %s, or the folder $USMNSCOPE_CORPUS names; it is not part of the repository (%v)", dir, err)
	}
	opened, refused := 0, 0
	for _, f := range files {
		if f.IsDir() {
			continue
		}
		path := filepath.Join(dir, f.Name())
		done := make(chan error, 1)
		go func() {
			done <- readAll(path)
		}()
		select {
		case err := <-done:
			if err != nil {
				refused++
				if testing.Verbose() {
					t.Logf("%s: %v", f.Name(), err)
				}
			} else {
				opened++
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s: no io.EOF after 10s (hang)", f.Name())
		}
	}
	t.Logf("%d captures read to the end, %d refused at open", opened, refused)
	if opened == 0 {
		t.Errorf("no capture of %d opened", len(files))
	}
}

// readAll reads a capture to io.EOF; an error is a refusal at Open. A panic
// escaping the Source fails the test through the goroutine crash.
func readAll(path string) error {
	src, err := Open(path, Options{})
	if err != nil {
		return err
	}
	defer src.Close()
	for {
		ev, err := src.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		_ = ev
	}
}
