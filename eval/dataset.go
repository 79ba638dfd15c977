// Package eval is the offline precision/recall harness: it embeds a rule
// registry with the service's own precompute job (memory.Precompute) into a
// temporary store, classifies every correction of a labelled dataset with the
// classifier, and reports the paper's Appendix B table (per category and
// overall precision, recall and F1 at the auto threshold, and at the paper's
// own thresholds), the three bands, a threshold sweep, an ablation, the
// polarity of what would be recorded (a contradiction must never be recorded
// as a reinforcement), the worst errors, a calibration of the thresholds on
// the dev split and the quality targets measured on the held-out test split.
package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/registry"
)

// Kinds of dataset item.
const (
	KindMatch     = "match"     // the correction is about exactly one existing rule
	KindNew       = "new"       // no existing rule fits: it should propose a new one
	KindAmbiguous = "ambiguous" // several existing rules fit; any of them is right
	// KindContradiction: the correction says the opposite of one existing
	// rule ("npm is fine for this repo" against "use pnpm, not npm"). It must
	// never be recorded as a reinforcement of any rule.
	KindContradiction = "contradiction"
)

// Kinds lists the kinds in report order.
var Kinds = []string{KindMatch, KindNew, KindAmbiguous, KindContradiction}

// PaperKinds are the kinds of the paper's Appendix B, the ones precision and
// recall of rule identification are computed on.
var PaperKinds = []string{KindMatch, KindNew, KindAmbiguous}

// Affirms reports whether an item of kind asks to reinforce a rule (match,
// ambiguous): recording a counterexample on it is a polarity false alarm.
func Affirms(kind string) bool { return kind == KindMatch || kind == KindAmbiguous }

// Splits of a dataset: calibration chooses thresholds on dev and reports them
// on test.
const (
	SplitDev  = "dev"
	SplitTest = "test"
)

// Limits on a dataset file.
const (
	MaxDatasetSize = 16 << 20 // bytes
	MaxLineSize    = 64 << 10 // bytes per line
	maxIDLength    = 200
)

// Item is one labelled correction. Expected is "" for new items (null in the
// file); Acceptable lists every rule that is a right answer, Expected first.
type Item struct {
	ID         string   `json:"id"`
	Text       string   `json:"text"`
	Expected   string   `json:"expected,omitempty"`
	Kind       string   `json:"kind"`
	Acceptable []string `json:"acceptable"`
	Split      string   `json:"split,omitempty"`
	Note       string   `json:"note,omitempty"`
	Line       int      `json:"-"` // 1-based line in the file
}

// Accepts reports whether rule is a right answer for the item.
func (it Item) Accepts(rule string) bool { return rule != "" && slices.Contains(it.Acceptable, rule) }

// Dataset is a validated labelled dataset.
type Dataset struct {
	Name  string
	Items []Item
}

// Count returns the number of items of each kind.
func (d *Dataset) Count() map[string]int {
	n := map[string]int{}
	for _, k := range Kinds {
		n[k] = 0
	}
	for _, it := range d.Items {
		n[it.Kind]++
	}
	return n
}

// HasSplits reports whether the items carry a dev/test split (all of them do,
// or none: ParseDataset refuses a mix).
func (d *Dataset) HasSplits() bool { return len(d.Items) > 0 && d.Items[0].Split != "" }

// LoadDataset reads and validates the JSONL dataset at path against reg (nil:
// the default pack). Errors: EINVALID when the file cannot be read or is not a
// valid dataset (a *engine.ValidationError listing every problem with its line);
// ETOOLARGE when it is larger than MaxDatasetSize.
func LoadDataset(path string, reg *registry.Registry) (*Dataset, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, engine.Errorf(engine.EINVALID, "dataset file %s does not exist", path)
	}
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "cannot read dataset file %s: %v", path, errors.Unwrap(err))
	}
	defer f.Close()
	return ParseDataset(f, path, reg)
}

// rawItem is a line as written, with pointers to tell missing keys from
// empty values and null from a string.
type rawItem struct {
	ID         *string         `json:"id"`
	Text       *string         `json:"text"`
	Expected   json.RawMessage `json:"expected"`
	Kind       *string         `json:"kind"`
	Acceptable *[]string       `json:"acceptable"`
	Split      *string         `json:"split"`
	Note       string          `json:"note"`
}

// ParseDataset reads a JSONL dataset from r, one object per line (blank lines
// are skipped), and validates it against reg (nil: the default pack); name
// prefixes every problem. Each object has "id" (unique), "text" (what the user
// said: not blank, with a letter or digit), "kind", "expected" and
// "acceptable": match → expected a rule id and acceptable exactly [expected];
// new → expected null and acceptable []; ambiguous → acceptable at least two
// distinct rules with expected first; contradiction (the text says the
// opposite of a rule) → expected that rule and acceptable exactly [expected].
// Every rule id must exist in reg.
// "split" ("dev" or "test") is optional but then on every line; "note" is a
// free comment; any other key is a problem. Errors: a *engine.ValidationError (code
// EINVALID) listing every problem; ETOOLARGE over MaxDatasetSize.
func ParseDataset(r io.Reader, name string, reg *registry.Registry) (*Dataset, error) {
	if reg == nil {
		reg = registry.Default()
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxDatasetSize+1))
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "cannot read dataset %s: %v", name, err)
	}
	if len(data) > MaxDatasetSize {
		return nil, engine.Errorf(engine.ETOOLARGE, "dataset %s is larger than %d bytes", name, MaxDatasetSize)
	}
	d := &Dataset{Name: name}
	ps := engine.Problems{Max: maxProblems, Listed: maxListed}
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineSize)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		it, ok := parseLine(text, line, reg, &ps)
		if !ok {
			continue
		}
		if first, dup := seen[it.ID]; dup {
			ps.Add(line, 0, "id %q is already used on line %d", it.ID, first)
			continue
		}
		seen[it.ID] = line
		d.Items = append(d.Items, it)
	}
	if err := sc.Err(); err != nil {
		ps.Add(line+1, 0, "cannot read the line: %v (a line is at most %d bytes)", err, MaxLineSize)
	}
	if len(d.Items) == 0 && ps.Len() == 0 {
		ps.Add(0, 0, "the dataset has no items")
	}
	checkSplits(d.Items, &ps)
	if err := ps.Err(name); err != nil {
		return nil, err
	}
	return d, nil
}

// parseLine decodes and validates one non-blank line, recording problems.
func parseLine(text string, line int, reg *registry.Registry, ps *engine.Problems) (Item, bool) {
	var raw rawItem
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		ps.Add(line, 0, "not a valid item: %v", err)
		return Item{}, false
	}
	if dec.More() {
		ps.Add(line, 0, "more than one JSON value on the line: one item per line")
		return Item{}, false
	}
	n := ps.Len()
	it := Item{Line: line, Note: raw.Note}
	switch {
	case raw.ID == nil || strings.TrimSpace(*raw.ID) == "":
		ps.Add(line, 0, `"id" is missing or empty`)
	case len(*raw.ID) > maxIDLength || strings.IndexFunc(*raw.ID, unicode.IsSpace) >= 0:
		ps.Add(line, 0, "id %q: want at most %d characters and no white space", *raw.ID, maxIDLength)
	default:
		it.ID = *raw.ID
	}
	switch {
	case raw.Text == nil:
		ps.Add(line, 0, `"text" is missing`)
	case engine.ValidateText("text", *raw.Text, engine.MaxUserTextLength) != nil:
		ps.Add(line, 0, "%s", engine.ErrorMessage(engine.ValidateText("text", *raw.Text, engine.MaxUserTextLength)))
	case strings.IndexFunc(*raw.Text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0:
		ps.Add(line, 0, "text %q has no letter or digit: the classifier refuses it", *raw.Text)
	default:
		it.Text = *raw.Text
	}
	if raw.Split != nil {
		if s := *raw.Split; s != SplitDev && s != SplitTest {
			ps.Add(line, 0, "split %q: want %q or %q", s, SplitDev, SplitTest)
		} else {
			it.Split = s
		}
	}
	expected, isNull, ok := decodeExpected(raw.Expected, line, ps)
	if raw.Acceptable == nil {
		ps.Add(line, 0, `"acceptable" is missing (use [] for a new item)`)
	} else {
		it.Acceptable = *raw.Acceptable
	}
	if raw.Kind == nil {
		ps.Add(line, 0, `"kind" is missing: want %s`, kindList)
	} else {
		it.Kind = *raw.Kind
	}
	if ok && raw.Acceptable != nil && raw.Kind != nil {
		checkLabels(it.Kind, expected, isNull, it.Acceptable, line, ps)
	}
	it.Expected = expected
	for _, id := range it.Acceptable {
		if _, _, known := reg.Lookup(id); !known {
			ps.Add(line, 0, "rule %q is not in registry %s", id, reg.Name())
		}
	}
	if it.Expected != "" && !slices.Contains(it.Acceptable, it.Expected) {
		if _, _, known := reg.Lookup(it.Expected); !known {
			ps.Add(line, 0, "rule %q is not in registry %s", it.Expected, reg.Name())
		}
	}
	return it, ps.Len() == n
}

// decodeExpected reads "expected": a rule id or null. ok is false after a
// problem was recorded.
func decodeExpected(raw json.RawMessage, line int, ps *engine.Problems) (id string, isNull, ok bool) {
	if raw == nil {
		ps.Add(line, 0, `"expected" is missing (use null for a new item)`)
		return "", false, false
	}
	if string(raw) == "null" {
		return "", true, true
	}
	if err := json.Unmarshal(raw, &id); err != nil || id == "" {
		ps.Add(line, 0, `"expected" is %s: want a rule id or null`, raw)
		return "", false, false
	}
	return id, false, true
}

// checkLabels checks that kind, expected and acceptable agree.
func checkLabels(kind, expected string, isNull bool, acceptable []string, line int, ps *engine.Problems) {
	for i, id := range acceptable {
		if slices.Contains(acceptable[:i], id) {
			ps.Add(line, 0, "acceptable lists %q twice", id)
		}
	}
	switch kind {
	case KindMatch:
		if isNull || len(acceptable) != 1 || acceptable[0] != expected {
			ps.Add(line, 0, "a match item has a rule id in expected and acceptable = [expected], got expected %s and acceptable %q", show(expected, isNull), acceptable)
		}
	case KindNew:
		if !isNull || len(acceptable) != 0 {
			ps.Add(line, 0, "a new item has expected null and acceptable [], got expected %s and acceptable %q", show(expected, isNull), acceptable)
		}
	case KindAmbiguous:
		if isNull || len(acceptable) < 2 || acceptable[0] != expected {
			ps.Add(line, 0, "an ambiguous item lists at least two rules in acceptable with expected first, got expected %s and acceptable %q", show(expected, isNull), acceptable)
		}
	case KindContradiction:
		if isNull || len(acceptable) != 1 || acceptable[0] != expected {
			ps.Add(line, 0, "a contradiction item has the rule it contradicts in expected and acceptable = [expected], got expected %s and acceptable %q", show(expected, isNull), acceptable)
		}
	default:
		ps.Add(line, 0, "kind %q: want %s", kind, kindList)
	}
}

// kindList names the valid kinds for problems.
var kindList = strings.Join(Kinds[:len(Kinds)-1], ", ") + " or " + Kinds[len(Kinds)-1]

func show(expected string, isNull bool) string {
	if isNull {
		return "null"
	}
	return fmt.Sprintf("%q", expected)
}

// checkSplits refuses a dataset where some items have a split and others not.
func checkSplits(items []Item, ps *engine.Problems) {
	with := 0
	for _, it := range items {
		if it.Split != "" {
			with++
		}
	}
	if with == 0 || with == len(items) {
		return
	}
	for _, it := range items {
		if it.Split == "" {
			ps.Add(it.Line, 0, "no split, but %d other items have one: give every item a split or none", with)
		}
	}
}
