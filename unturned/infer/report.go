package infer

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// WriteReport writes res as `profile infer` prints it: a TOML profile of
// the decided keys, each with its confidence and evidence, after comment
// lines naming the capture, the active profile (active) and the search;
// truncatedKiB, when above 0, says only that many KiB of the capture's
// data were searched.
func WriteReport(w io.Writer, capture, active string, truncatedKiB int, res *Result) {
	fmt.Fprintf(w, "# usmnscope profile infer: %s\n", termsafe.Escape(capture))
	if truncatedKiB > 0 {
		fmt.Fprintf(w, "# only the first %d KiB of the capture's data were searched\n", truncatedKiB)
	}
	fmt.Fprintf(w, "# %d messages: profile %s decodes them with score %d (%d flagged), this one with %d (%d flagged)\n",
		res.Best.Messages, termsafe.Escape(active), res.Active.Bad, res.Active.Flagged, res.Best.Bad, res.Best.Flagged)
	fmt.Fprintf(w, "# searched %d candidate profiles in %d ms (%d messages read, %d decodes of the capture)\n",
		res.Candidates, res.Elapsed.Milliseconds(), res.Sample, res.Decodes)
	if len(res.Keys) == 0 {
		fmt.Fprintln(w, "# the capture decides no key: every key keeps its default")
	}
	for _, k := range res.Keys {
		fmt.Fprintf(w, "%s = %s  # confidence %.2f: %s\n", k.Name, TOMLValue(k), k.Confidence, termsafe.Escape(k.Text))
	}
	for _, u := range res.Undecided {
		fmt.Fprintf(w, "# undecided: %s: %s\n", u.Name, termsafe.Escape(u.Reason))
	}
}

// TOMLValue formats a claimed value as TOML: the magic in hex, as
// docs/profile.md writes it.
func TOMLValue(k Key) string {
	switch v := k.Value.(type) {
	case string:
		return strconv.Quote(v)
	case uint32:
		if k.Name == "marker_magic" {
			return fmt.Sprintf("0x%08X", v)
		}
		return strconv.FormatUint(uint64(v), 10)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return fmt.Sprint(k.Value)
}

// JSON is docs/json.md's profile infer document.
func JSON(res *Result) ([]byte, error) {
	type evidence struct {
		Confidence float64 `json:"confidence"`
		Text       string  `json:"text"`
	}
	type searched struct {
		Candidates int   `json:"candidates"`
		Decodes    int   `json:"decodes"`
		Messages   int   `json:"messages"`
		MS         int64 `json:"ms"`
	}
	doc := struct {
		Profile   map[string]any      `json:"profile"`
		Evidence  map[string]evidence `json:"evidence"`
		Undecided map[string]string   `json:"undecided"`
		Searched  searched            `json:"searched"`
	}{map[string]any{}, map[string]evidence{}, map[string]string{},
		searched{res.Candidates, res.Decodes, res.Sample, res.Elapsed.Milliseconds()}}
	for _, k := range res.Keys {
		doc.Profile[k.Name] = k.Value
		doc.Evidence[k.Name] = evidence{k.Confidence, k.Text}
	}
	for _, u := range res.Undecided {
		doc.Undecided[u.Name] = u.Reason
	}
	return json.Marshal(doc)
}
