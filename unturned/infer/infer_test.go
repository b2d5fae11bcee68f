package infer_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
	utfeed "github.com/usmnscope/usmnscope/unturned/feed"
	"github.com/usmnscope/usmnscope/unturned/infer"
)

const fixtures = "../../fixtures"

// decoder records a capture once and decodes it under any profile.
func decoder(t testing.TB, rec *pipeline.Recording) infer.Decoder {
	return func(p *unturned.Profile) infer.Decoded {
		ix := session.NewIndexLimits(p, p.Bounds.Limits())
		_ = pipeline.Feed(rec.Source(), ix, nil)
		return utfeed.Decoded(ix)
	}
}

func record(t testing.TB, path string) *pipeline.Recording {
	t.Helper()
	src, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	return pipeline.Record(src, 64<<20)
}

func loadProfile(t *testing.T, name string) *unturned.Profile {
	t.Helper()
	if name == "" {
		return unturned.Default()
	}
	b, err := os.ReadFile(filepath.Join(fixtures, "profiles", name))
	if err != nil {
		t.Fatal(err)
	}
	p, err := unturned.ParseProfile(name, b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// usmnKeys are the keys only USMN traffic shows.
var usmnKeys = []string{"marker_magic", "extra_bits", "server_invoke_listener", "server_negotiate", "client_invoke_listener", "client_negotiate",
	"id_bit_count_bit_count", "negotiate_mode_bit_count", "mode_tell_client_missing_listener", "mode_tell_client_listener_id",
	"mode_tell_server_missing_listener", "mode_request_server_listener_id", "type_name_bit_count"}

// TestInferFixtures (issue 13 point 5): started from the default profile,
// profile infer recovers every key it claims on each non-default fixture
// profile (the wire.md 6.1 example among them) and claims on the default
// fixtures only the defaults; on the non-default ones it claims at least
// the keys their script shows.
func TestInferFixtures(t *testing.T) {
	tests := []struct {
		capture, profile string
		want             []string // keys the capture shows: they must be claimed
		forbid           []string // keys the capture cannot show
	}{
		{"profile-wire61.pcapng", "wire61.toml", []string{"game", "extra_bits", "server_invoke_listener", "server_negotiate", "client_invoke_listener", "client_negotiate", "id_bit_count_bit_count", "marker_magic", "transport_port"}, nil},
		{"profile-custom.pcapng", "custom.toml", []string{"extra_bits", "server_invoke_listener", "server_negotiate", "client_invoke_listener", "client_negotiate", "negotiate_mode_bit_count", "mode_tell_client_missing_listener", "mode_tell_client_listener_id", "mode_tell_server_missing_listener", "mode_request_server_listener_id", "marker_magic", "transport_port"}, nil},
		{"usmn-basic.pcapng", "", []string{"extra_bits", "id_bit_count_bit_count", "marker_magic", "transport_port"}, nil},
		{"vanilla.pcapng", "", []string{"game", "transport_port"}, usmnKeys},
		{"usmn-midstream.pcapng", "", nil, nil},
		{"usmn-oneside.pcapng", "", []string{"marker_magic"}, usmnKeys[1:]}, // the client's marker only: nothing widened
		{"two-conns.pcapng", "", nil, nil},
		{"transport-mess.pcapng", "", nil, nil},
		{"hostile.pcapng", "", nil, nil},
		{"ports.pcapng", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.capture, func(t *testing.T) {
			truth := loadProfile(t, tt.profile)
			rec := record(t, filepath.Join(fixtures, "captures", tt.capture))
			res := infer.Run(unturned.Default(), decoder(t, rec))
			var claimed []string
			for _, k := range res.Keys {
				claimed = append(claimed, k.Name)
				want := infer.Get(truth, k.Name)
				if !reflect.DeepEqual(k.Value, want) {
					t.Errorf("claimed %s = %v (%s); the capture was made with %v", k.Name, k.Value, k.Text, want)
				}
				if k.Confidence <= 0 || k.Confidence > 1 {
					t.Errorf("%s: confidence %v outside (0, 1]", k.Name, k.Confidence)
				}
			}
			for _, f := range tt.forbid {
				if k, ok := res.Claimed(f); ok {
					t.Errorf("claimed %s = %v (%s); the capture cannot show it", f, k.Value, k.Text)
				}
			}
			for _, w := range tt.want {
				if _, ok := res.Claimed(w); !ok {
					t.Errorf("%s not claimed; the capture shows it (claimed: %s)", w, strings.Join(claimed, ", "))
				}
			}
			t.Logf("claimed %s; active score %+v, inferred %+v; %d decodes", strings.Join(claimed, ", "), res.Active, res.Best, res.Decodes)
		})
	}
}

// TestInferCuts: a capture cut short shows less, and profile infer
// claims less, never something else: at every few event boundaries of the
// non-default fixtures, every claimed key is the profile's.
func TestInferCuts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, tt := range []struct{ capture, profile string }{
		{"profile-wire61.pcapng", "wire61.toml"},
		{"profile-custom.pcapng", "custom.toml"},
	} {
		truth := loadProfile(t, tt.profile)
		rec := record(t, filepath.Join(fixtures, "captures", tt.capture))
		for k := 0; k <= len(rec.Events); k += 4 {
			cut := &pipeline.Recording{Events: rec.Events[:k], Stats: rec.Stats}
			res := infer.Run(unturned.Default(), decoder(t, cut))
			for _, key := range res.Keys {
				if want := infer.Get(truth, key.Name); !reflect.DeepEqual(key.Value, want) {
					t.Errorf("%s cut after %d events: claimed %s = %v (%s); want %v or no claim", tt.capture, k, key.Name, key.Value, key.Text, want)
				}
			}
		}
	}
}
