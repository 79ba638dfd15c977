package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/redact/redacttest"
)

// TestSecretsCorpus sends every shape of the secrets corpus
// (redact/redacttest: tokens, private keys, passwords in URLs, flags,
// headers, cookies, assignments and English or German prose, each followed
// by a character that turns with the shape) through every channel that
// takes text from outside — the HTTP API, the Claude Code hook route, MCP,
// the CLI, a registry sync and an import — each channel with secrets of its
// own. Then it reads the SQLite file, its write-ahead log (as it was after
// each channel, and at the end), `lexsona export` and the server's log,
// and fails naming each channel and shape whose secret any of them holds.
func TestSecretsCorpus(t *testing.T) {
	bin := MustBuildBinary(t)
	dir := t.TempDir()
	h := &corpusHarness{bin: bin, db: filepath.Join(dir, "corpus.db"), dir: dir}
	p := MustStartServe(t, bin, h.db)
	if _, err := p.WaitReady(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	h.http = NewClient(p.Base, 4)

	channels := append(slices.Clone(corpusChannels), importChannel(false), importChannel(true))
	shapes := make([][]redacttest.Shape, len(channels))
	denied := 0
	var wal walLog
	for ci, ch := range channels {
		shapes[ci] = redacttest.ShapesFor(uint64(ci + 1))
		texts := make([]string, len(shapes[ci]))
		for i, sh := range shapes[ci] {
			texts[i] = sh.With(redacttest.Trailers[(i+ci+1)%len(redacttest.Trailers)])
		}
		notes := ch.send(t, h, fmt.Sprintf("c%d", ci+1), texts)
		var refused []string
		for i, n := range notes {
			if n != "" {
				refused = append(refused, shapes[ci][i].Name+": "+n)
			}
		}
		if strings.Contains(ch.name, "PreToolUse") {
			denied = len(texts) - len(refused)
			waitViolations(t, h.db, denied)
		}
		wal.sample(h.db + "-wal")
		t.Logf("%-36s %d texts, %d refused", ch.name, len(texts), len(refused))
		for _, r := range refused[:min(3, len(refused))] {
			t.Logf("    refused %s", r)
		}
		if len(refused) == len(texts) {
			t.Errorf("%s refused every text: the channel was not exercised", ch.name)
		}
	}
	wal.sample(h.db + "-wal")
	where := map[string][]byte{"database": mustRead(t, h.db), "WAL": wal.frames, "server log": []byte(p.Log())}
	exp := MustRunCLI(t, bin, "", "--db", h.db, "export")
	if exp.Code != 0 {
		t.Fatalf("lexsona export: exit %d: %s", exp.Code, exp.Stderr)
	}
	where["export"] = []byte(exp.Stdout)
	for name, b := range where {
		t.Logf("%s: %d bytes", name, len(b))
	}
	for _, name := range []string{"database", "export"} {
		if !bytes.Contains(where[name], []byte("Never commit this: ")) {
			t.Errorf("the %s holds none of the texts sent: the search below would prove nothing", name)
		}
	}
	t.Logf("the export holds %d placeholders", bytes.Count(where["export"], []byte("[REDACTED:")))

	var secrets []string
	for _, shs := range shapes {
		for _, sh := range shs {
			secrets = append(secrets, sh.Secret)
		}
	}
	held := map[string]map[string]bool{} // location → the secrets it holds
	for name, b := range where {
		held[name] = secretsIn(b, secrets)
	}
	leaks := 0
	for ci, ch := range channels {
		for _, sh := range shapes[ci] {
			var in []string
			for name := range where {
				if held[name][sh.Secret] {
					in = append(in, name)
				}
			}
			if len(in) > 0 {
				slices.Sort(in)
				leaks++
				t.Errorf("LEAK %s × %s: in the %s", ch.name, sh.Name, strings.Join(in, ", "))
			}
		}
	}
	t.Logf("%d channels × %d shapes: %d secrets stored", len(channels), len(shapes[0]), leaks)
}

// walLog gathers what a write-ahead log held over time: a checkpoint
// empties it, so it is read after each channel, and each read adds the
// frames written since the last one (all of them after the log started
// again).
type walLog struct {
	frames []byte
	last   []byte // the last read
}

func (w *walLog) sample(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	const header = 32 // a new log has a new header (its salts)
	if len(w.last) >= header && len(b) >= len(w.last) && bytes.Equal(b[:header], w.last[:header]) {
		w.frames = append(w.frames, b[len(w.last):]...)
	} else {
		w.frames = append(w.frames, b...)
	}
	w.last = b
}

// secretsIn returns which of secrets (6 bytes or more each) data holds, in
// one pass over data.
func secretsIn(data []byte, secrets []string) map[string]bool {
	const k = 6
	byPrefix := map[string][]string{}
	for _, s := range secrets {
		byPrefix[s[:k]] = append(byPrefix[s[:k]], s)
	}
	found := map[string]bool{}
	for i := 0; i+k <= len(data); i++ {
		for _, s := range byPrefix[string(data[i:i+k])] {
			if bytes.HasPrefix(data[i:], []byte(s)) {
				found[s] = true
			}
		}
	}
	return found
}

// waitViolations waits until the store holds n violation events: a denied
// tool call's violation is written behind the answer.
func waitViolations(t *testing.T, db string, n int) {
	t.Helper()
	ro := MustOpenReadOnly(t, db)
	var got int
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err := ro.QueryRow(`SELECT count(*) FROM persona_events WHERE event_type = 'violation'`).Scan(&got); err == nil && got >= n {
			return
		}
	}
	t.Errorf("%d violations stored of the %d calls denied", got, n)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
