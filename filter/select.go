package filter

import "github.com/usmnscope/usmnscope/session"

// Select returns the numbers of dc's messages that f matches (all of them
// when f is nil), reading only the index records when f needs no more
// (HeadOnly).
func Select(dc *session.Index, f *Filter) []int {
	var nums []int
	for n := 1; n <= dc.Len(); n++ {
		if f.HeadOnly() {
			if h, ok := dc.FilterHead(n); ok && (f == nil || f.MatchHead(h)) {
				nums = append(nums, n)
			}
			continue
		}
		if m := dc.Message(n); m != nil && f.Match(m) {
			nums = append(nums, n)
		}
	}
	return nums
}
