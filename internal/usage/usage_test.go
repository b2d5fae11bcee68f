package usage

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/spf13/cobra"
)

// TestCobraFlagGroupErrorsAreUsage: cobra's flag-group checks return untyped
// errors that skip the flag error func; IsArgs must still tell them
// (Execute exits 2 for them, outputs.md).
func TestCobraFlagGroupErrorsAreUsage(t *testing.T) {
	mark := []func(c *cobra.Command){
		func(c *cobra.Command) { c.MarkFlagsMutuallyExclusive("a", "b") },
		func(c *cobra.Command) { c.MarkFlagsRequiredTogether("a", "b") },
		func(c *cobra.Command) { c.MarkFlagsOneRequired("a", "b") },
		func(c *cobra.Command) { c.MarkFlagRequired("a") },
	}
	args := [][]string{{"--a", "--b"}, {"--a"}, {}, {"--b"}}
	for i, m := range mark {
		c := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }, SilenceErrors: true, SilenceUsage: true}
		c.Flags().Bool("a", false, "")
		c.Flags().Bool("b", false, "")
		m(c)
		c.SetArgs(args[i])
		c.SetOut(io.Discard)
		err := c.Execute()
		if err == nil || !IsArgs(err) {
			t.Errorf("case %d: IsArgs(%v) = false; want true", i, err)
		}
	}
	if IsArgs(errors.New("pcapng: bad block")) {
		t.Error("IsArgs(pcapng: bad block) = true; want false")
	}
}

// TestArgs: a missing argument is named, an extra one quoted, and both
// are ArgsErrors.
func TestArgs(t *testing.T) {
	c := &cobra.Command{Use: "tables"}
	if err := Args("CAPTURE...")(c, nil); err == nil || err.Error() != "tables: missing CAPTURE" || !IsArgs(err) {
		t.Errorf("no CAPTURE: %v", err)
	}
	if err := Args("HEX")(c, []string{"a", "b"}); err == nil || err.Error() != `tables: unexpected argument "b": it takes HEX` || !IsArgs(err) {
		t.Errorf("an extra argument: %v", err)
	}
	if err := Args("CAPTURE...")(c, []string{"a", "b"}); err != nil {
		t.Errorf("two CAPTUREs: %v", err)
	}
	if IsArgs(fmt.Errorf("wrapped: %w", errors.New("x"))) {
		t.Error("IsArgs(a plain error) = true")
	}
}
