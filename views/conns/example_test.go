package conns_test

import (
	"fmt"

	"github.com/usmnscope/usmnscope/views/conns"
)

// Sparkline scales counts to the largest; an idle second is blank.
func ExampleSparkline() {
	fmt.Printf("[%s]\n", conns.Sparkline([]int{1, 0, 4, 8, 2}, 10))
	fmt.Printf("[%s]\n", conns.Sparkline([]int{9, 9, 1, 2, 3}, 3))
	// Output:
	// [▁ ▄█▂]
	// [▃▅█]
}
