package engine

// Suggest returns the closest of known to s within two edits (Levenshtein
// distance in bytes; the first of equally close ones), or "" when none is
// that close or s is one of them: the "did you mean" of an error naming a
// misspelt key or name.
func Suggest(s string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		d := editDistance(s, k)
		if d == 0 {
			return ""
		}
		if d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b in bytes; strings over
// 64 bytes are never close to anything (99).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
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
