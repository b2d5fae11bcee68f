package infer_test

import (
	"path/filepath"
	"testing"

	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/infer"
)

// BenchmarkRun: a whole profile infer of a 22-message fixture made under a
// far-from-default profile, from the default one.
func BenchmarkRun(b *testing.B) {
	rec := record(b, filepath.Join(fixtures, "captures", "profile-custom.pcapng"))
	b.ReportAllocs()
	var res *infer.Result
	for b.Loop() {
		res = infer.Run(unturned.Default(), decoder(b, rec))
	}
	b.ReportMetric(float64(res.Decodes), "decodes/op")
}
