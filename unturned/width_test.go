package unturned

import "testing"

func TestDecideConfidence(t *testing.T) {
	for _, tc := range []struct {
		v, w    int
		widened bool
		conf    float64
	}{{0, 0, false, 0.5}, {4, 4, false, 0.5}, {1, 3, true, 0.75}, {6, 2, false, 0.75}} {
		w, c := decideConfidence(tc.v, tc.w)
		if w != tc.widened || c != tc.conf {
			t.Errorf("decideConfidence(%d, %d) = %v, %v; want %v, %v", tc.v, tc.w, w, c, tc.widened, tc.conf)
		}
	}
}
