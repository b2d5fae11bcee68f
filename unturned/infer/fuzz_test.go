package infer_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/infer"
)

// FuzzInfer: the inference entry point on any input never panics, stays
// within its decode bound, and claims only values that make a valid
// profile.
func FuzzInfer(f *testing.F) {
	for _, name := range []string{"profile-custom.pcapng", "profile-wire61.pcapng", "usmn-midstream.pcapng", "ports.pcapng"} {
		if b, err := os.ReadFile(filepath.Join(fixtures, "captures", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := capture.NewReader(bytes.NewReader(data), "fuzz", capture.Options{})
		if err != nil {
			return
		}
		rec := pipeline.Record(src, 1<<20)
		const bound = 60
		res := infer.RunBounded(unturned.Default(), decoder(t, rec), bound)
		if res.Decodes > bound+2 {
			t.Fatalf("%d decodes; the bound is %d", res.Decodes, bound)
		}
		if err := res.Profile.Validate(); err != nil {
			t.Fatalf("inferred profile is invalid: %v", err)
		}
		for _, k := range res.Keys {
			if k.Confidence <= 0 || k.Confidence > 1 {
				t.Fatalf("%s: confidence %v", k.Name, k.Confidence)
			}
			if got := infer.Get(res.Profile, k.Name); got != k.Value {
				t.Fatalf("%s claimed %v but the profile has %v", k.Name, k.Value, got)
			}
		}
	})
}
