package memory

import "github.com/lexsona/lexsona/store"

// batch is one embedding call: distinct texts, and the stored texts (one or
// more per distinct text: rules may share a phrasing) each vector is for.
type batch struct {
	texts []string
	items []store.RuleText
	of    []int // of[i] is the index in texts of items[i]
}

// embedBatches groups the missing texts into batches of at most size distinct texts,
// in the order the store listed them, so a text shared by several rules is
// embedded once and all of its rows land in the same transaction.
func embedBatches(missing []store.RuleText, size int) []batch {
	order := make([]string, 0, len(missing))
	rows := make(map[string][]store.RuleText, len(missing))
	for _, m := range missing {
		if _, seen := rows[m.SHA256]; !seen {
			order = append(order, m.SHA256)
		}
		rows[m.SHA256] = append(rows[m.SHA256], m)
	}
	var out []batch
	for start := 0; start < len(order); start += size {
		var b batch
		for _, sha := range order[start:min(start+size, len(order))] {
			r := rows[sha]
			for _, it := range r {
				b.items = append(b.items, it)
				b.of = append(b.of, len(b.texts))
			}
			b.texts = append(b.texts, r[0].Text)
		}
		out = append(out, b)
	}
	return out
}

// expand pairs every item of the batch with the vector of its text.
func (b batch) expand(vecs [][]float32) ([]store.RuleText, [][]float32) {
	out := make([][]float32, len(b.items))
	for i, j := range b.of {
		out[i] = vecs[j]
	}
	return b.items, out
}
