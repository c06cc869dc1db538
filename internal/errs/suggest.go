package errs

import "strings"

// DidYouMean is " (did you mean X?)" for the candidate closest to what was
// typed, or "" when none is close: at most two edits apart (a third for
// long names), or one of them a prefix of the other.
func DidYouMean(typed string, candidates []string) string {
	best, bestD := "", 1<<30
	limit := 2
	if len(typed) > 12 {
		limit = 3
	}
	for _, c := range candidates {
		d := editDistance(strings.ToLower(typed), strings.ToLower(c))
		if d > limit && !(len(typed) >= 3 && strings.HasPrefix(c, typed)) {
			continue
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || best == typed {
		return ""
	}
	return " (did you mean " + best + "?)"
}

// editDistance is Levenshtein's: insertions, deletions and substitutions.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
