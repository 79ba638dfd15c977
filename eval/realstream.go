package eval

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The real-prompt corpus (eval/realprompts): labels and pointers to
// prompts people typed to coding agents, and, where rebuild.py could fetch
// them, the texts in a local folder that is never committed.

// RealLabel is one line of eval/realprompts/labels.jsonl.
type RealLabel struct {
	Repo   string  `json:"repo"`
	Path   string  `json:"path"`
	Commit string  `json:"commit"`
	Turn   int     `json:"turn"`
	SHA256 string  `json:"sha256"`
	Label  string  `json:"label"`
	Rule   *string `json:"rule"`
	Stance *string `json:"stance"`
	Kind   string  `json:"kind"`
}

// realText is one line of the rebuilt texts (.texts/texts.jsonl).
type realText struct {
	SHA256 string `json:"sha256"`
	OK     bool   `json:"ok"`
	Text   string `json:"text"`
}

// LoadRealStream reads dir's labels.jsonl and the texts rebuild.py wrote to
// dir/.texts/texts.jsonl, and returns the prompts whose text is there and
// matches its hash, as a stream (realItem). missing counts the labels
// without a text. Errors: a file that cannot be read, a line that is not
// JSON, or no text at all (run rebuild.py first).
func LoadRealStream(dir string) (items []StreamItem, missing int, err error) {
	ps, missing, err := loadRealTexts(dir)
	for _, p := range ps {
		it := realItem(p.label)
		it.Text = p.text
		items = append(items, it)
	}
	return items, missing, err
}

// realItem is label l as an item of a stream (without its text): one
// writer per repository, one session per transcript file.
func realItem(l RealLabel) StreamItem {
	it := StreamItem{ID: fmt.Sprintf("%s:%s@%.8s#%d", l.Repo, l.Path, l.Commit, l.Turn), Session: l.Repo + ":" + l.Path,
		Kind: StreamOrdinary, Writer: strings.ReplaceAll(l.Repo, "/", "+"), Split: "real"}
	if l.Label == StreamCorrection {
		it.Kind, it.Rule, it.Stance = StreamCorrection, l.Rule, l.Stance
	}
	return it
}

// realPrompt is a label with its text.
type realPrompt struct {
	label     RealLabel
	sha, text string
}

// loadRealTexts is LoadRealStream's reading: the labels in file order with
// their texts, those without one counted in missing.
func loadRealTexts(dir string) (ps []realPrompt, missing int, err error) {
	texts := map[string]string{}
	if err := eachJSONLine(filepath.Join(dir, ".texts", "texts.jsonl"), func(line []byte) error {
		var t realText
		if err := json.Unmarshal(line, &t); err != nil {
			return err
		}
		if sum := sha256.Sum256([]byte(t.Text)); t.OK && hex.EncodeToString(sum[:]) == t.SHA256 {
			texts[t.SHA256] = t.Text
		}
		return nil
	}); err != nil {
		return nil, 0, fmt.Errorf("the real prompts' texts (python3 %s/rebuild.py rebuilds them): %w", dir, err)
	}
	labels, err := LoadRealLabels(dir)
	if err != nil {
		return nil, 0, err
	}
	for _, l := range labels {
		text, ok := texts[l.SHA256]
		if !ok {
			missing++
			continue
		}
		ps = append(ps, realPrompt{label: l, sha: l.SHA256, text: text})
	}
	if len(ps) == 0 {
		err = fmt.Errorf("no real prompt has its text in %s/.texts: run python3 %s/rebuild.py", dir, dir)
	}
	return ps, missing, err
}

// LoadRealLabels reads dir/labels.jsonl. Errors: a file that cannot be
// read, a line that is not JSON.
func LoadRealLabels(dir string) ([]RealLabel, error) {
	var out []RealLabel
	err := eachJSONLine(filepath.Join(dir, "labels.jsonl"), func(line []byte) error {
		var l RealLabel
		if err := json.Unmarshal(line, &l); err != nil {
			return err
		}
		out = append(out, l)
		return nil
	})
	return out, err
}

func eachJSONLine(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}
