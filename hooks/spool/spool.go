// Package spool is the command hooks' durable queue: what a hook captures
// (a prompt, a denied tool call) is written here and synced before the hook
// returns, and delivered afterwards — by a drainer the hook starts, or the
// next hook run — at least once. Each item carries an idempotency key (for
// a prompt: the session and the prompt's hash), and the receiver records a
// key once, so at-least-once delivery records every item exactly once.
//
// An item is one JSON file named by its key's hash: putting the same key
// twice keeps the first. A delivery that fails with a transient error
// leaves the item for the next drain; one the receiver refuses as invalid
// moves it to failed/ with the error, so one bad item never blocks the rest.
package spool

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Item kinds.
const (
	KindPrompt    = "prompt"
	KindViolation = "violation"
)

// Item is one captured thing waiting for delivery.
type Item struct {
	// Key is the idempotency key the receiver records it under.
	Key  string `json:"key"`
	Kind string `json:"kind"`
	// Payload is what the receiver needs: the hook event, or the violation.
	Payload json.RawMessage `json:"payload"`
	At      time.Time       `json:"at"`
}

// Spool is a folder of items.
type Spool struct{ dir string }

// Open returns the spool in dir, creating it (mode 0700: prompts are
// private) when absent. Errors: the file system's, naming dir.
func Open(dir string) (*Spool, error) {
	if err := os.MkdirAll(filepath.Join(dir, failedDir), 0o700); err != nil {
		return nil, fmt.Errorf("spool %s: %w", dir, err)
	}
	return &Spool{dir: dir}, nil
}

// Dir is the spool's folder.
func (s *Spool) Dir() string { return s.dir }

const (
	failedDir = "failed"
	lastError = "last-error"
	suffix    = ".json"
)

func fileName(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16]) + suffix
}

// Put writes it durably: to a temporary file, synced, renamed into place
// and the folder synced, so that once Put returns the item survives a
// crash. An item with the same key already there is kept and added is
// false. Errors: the file system's.
func (s *Spool) Put(it Item) (added bool, err error) {
	if it.Key == "" || it.Kind == "" {
		return false, errors.New("spool: an item needs a key and a kind")
	}
	path := filepath.Join(s.dir, fileName(it.Key))
	if _, err := os.Lstat(path); err == nil {
		return false, nil
	}
	data, err := json.Marshal(it)
	if err != nil {
		return false, fmt.Errorf("spool: %w", err)
	}
	tmp, err := os.CreateTemp(s.dir, ".put-*")
	if err != nil {
		return false, fmt.Errorf("spool: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, fmt.Errorf("spool: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return false, fmt.Errorf("spool: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("spool: %w", err)
	}
	// A hard link fails when the name exists: two hooks putting the same
	// key at once keep one item.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("spool: %w", err)
	}
	return true, syncDir(s.dir)
}

// Items lists the items waiting, oldest first. A file that cannot be read
// as an item is moved to failed/.
func (s *Spool) Items() ([]Item, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	var out []Item
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, suffix) || strings.HasPrefix(name, ".") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(s.dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // delivered meanwhile by another drainer
		}
		var it Item
		if err == nil {
			err = json.Unmarshal(data, &it)
		}
		if err != nil {
			s.moveFailed(name, fmt.Sprintf("unreadable spool item: %v", err))
			continue
		}
		out = append(out, it)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, nil
}

// Depth counts the items waiting.
func (s *Spool) Depth() (int, error) {
	its, err := s.Items()
	return len(its), err
}

// Done removes the item of key: it was delivered.
func (s *Spool) Done(key string) error {
	err := os.Remove(filepath.Join(s.dir, fileName(key)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Fail moves the item of key to failed/ with why beside it: the receiver
// refused it, and delivering it again would be refused again.
func (s *Spool) Fail(key, why string) error { return s.moveFailed(fileName(key), why) }

func (s *Spool) moveFailed(name, why string) error {
	dst := filepath.Join(s.dir, failedDir, name)
	if err := os.Rename(filepath.Join(s.dir, name), dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.WriteFile(dst+".error", []byte(why+"\n"), 0o600)
}

// Failed counts the items moved to failed/.
func (s *Spool) Failed() int {
	entries, _ := os.ReadDir(filepath.Join(s.dir, failedDir))
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), suffix) {
			n++
		}
	}
	return n
}

// NoteError records the last delivery error, with its time, for doctor.
func (s *Spool) NoteError(err error, at time.Time) {
	_ = os.WriteFile(filepath.Join(s.dir, lastError), []byte(at.UTC().Format(time.RFC3339)+" "+err.Error()+"\n"), 0o600)
}

// ClearError forgets the last delivery error: a drain delivered everything.
func (s *Spool) ClearError() { _ = os.Remove(filepath.Join(s.dir, lastError)) }

// LastError is the last delivery error recorded ("" when none).
func (s *Spool) LastError() string {
	data, err := os.ReadFile(filepath.Join(s.dir, lastError))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
