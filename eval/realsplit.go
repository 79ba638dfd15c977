package eval

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The real corpus is split by repository, so that no user's prompts are on
// both sides: thresholds, budgets and models are chosen on the train side
// and measured on the held-out one. The rule is fixed — a repository is
// held out when the first byte of the SHA-256 of its name is below 128 —
// and its outcome is written down in split.txt beside the derived figures.
const (
	RealTrain = "train"
	RealTest  = "test"
)

// RealSplitOf is the side repository repo is on.
func RealSplitOf(repo string) string {
	if sha256.Sum256([]byte(repo))[0] < 128 {
		return RealTest
	}
	return RealTrain
}

// WriteRealSplit writes dir/split.txt: every repository of labels and its
// side, a tab between, in name order.
func WriteRealSplit(dir string, labels []RealLabel) error {
	var repos []string
	for _, l := range labels {
		if !slices.Contains(repos, l.Repo) {
			repos = append(repos, l.Repo)
		}
	}
	slices.Sort(repos)
	var b strings.Builder
	b.WriteString("# repository\tside (train or test): test when sha256(repository)[0] < 128 (eval.RealSplitOf)\n")
	for _, r := range repos {
		fmt.Fprintf(&b, "%s\t%s\n", r, RealSplitOf(r))
	}
	return os.WriteFile(filepath.Join(dir, "split.txt"), []byte(b.String()), 0o644)
}

// ReadRealSplit reads dir/split.txt. Errors: a missing file, a line that
// is not a repository, a tab and train or test.
func ReadRealSplit(dir string) (map[string]string, error) {
	f, err := os.Open(filepath.Join(dir, "split.txt"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		repo, side, ok := strings.Cut(line, "\t")
		if !ok || (side != RealTrain && side != RealTest) {
			return nil, fmt.Errorf("%s/split.txt:%d: want a repository, a tab and train or test", dir, n)
		}
		out[repo] = side
	}
	return out, sc.Err()
}
