package spool

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestSpoolDeliversEachKeyOnce: items put from many goroutines, some keys
// twice, while several drainers run and the receiver fails now and then,
// are all delivered, and each put that added an item is delivered once:
// never twice by two drainers (a key put again after its delivery is a
// new item, which the receiver's idempotency key records once).
func TestSpoolDeliversEachKeyOnce(t *testing.T) {
	sp, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	recorded, added := map[string]int{}, map[string]int{}
	calls := 0
	deliver := func(_ context.Context, it Item) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls%7 == 0 {
			return errors.New("database is locked")
		}
		recorded[it.Key]++
		return nil
	}
	const n = 200
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				key := fmt.Sprintf("session:%d", i)
				for rep := 0; rep < 1+i%2; rep++ {
					ok, err := sp.Put(Item{Key: key, Kind: KindPrompt, Payload: []byte(`{}`), At: time.Now()})
					if err != nil {
						t.Error(err)
					}
					if ok {
						mu.Lock()
						added[key]++
						mu.Unlock()
					}
				}
				sp.Drain(t.Context(), deliver)
			}
		}(w)
	}
	wg.Wait()
	for tries := 0; tries < 100; tries++ {
		if d, _ := sp.Depth(); d == 0 {
			break
		}
		sp.Drain(t.Context(), deliver)
	}
	if d, _ := sp.Depth(); d != 0 {
		t.Fatalf("%d items left", d)
	}
	if len(recorded) != n {
		t.Errorf("%d keys delivered, want %d", len(recorded), n)
	}
	for k, c := range recorded {
		if c != added[k] {
			t.Errorf("%s delivered %d times, added %d times", k, c, added[k])
		}
	}
	if sp.LastError() != "" {
		t.Errorf("last error %q after a drain that delivered everything", sp.LastError())
	}
}

// TestSpoolRefusedItemsStepAside: an item the receiver refuses goes to
// failed/ with its error and the rest are delivered; a transient error
// keeps the item and is recorded.
func TestSpoolRefusedItemsStepAside(t *testing.T) {
	sp, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range []string{"bad", "good"} {
		if _, err := sp.Put(Item{Key: k, Kind: KindPrompt, Payload: []byte(`{}`), At: time.Unix(int64(i), 0)}); err != nil {
			t.Fatal(err)
		}
	}
	down := errors.New("service unavailable")
	if _, err := sp.Drain(t.Context(), func(context.Context, Item) error { return down }); !errors.Is(err, down) {
		t.Fatalf("drain error %v", err)
	}
	if d, _ := sp.Depth(); d != 2 || sp.LastError() == "" {
		t.Fatalf("after a transient error: depth %d, last error %q", d, sp.LastError())
	}
	n, err := sp.Drain(t.Context(), func(_ context.Context, it Item) error {
		if it.Key == "bad" {
			return fmt.Errorf("%w: malformed prompt", ErrRefused)
		}
		return nil
	})
	if err != nil || n != 1 {
		t.Fatalf("drain: %d, %v", n, err)
	}
	if d, _ := sp.Depth(); d != 0 || sp.Failed() != 1 {
		t.Errorf("depth %d failed %d, want 0 and 1", d, sp.Failed())
	}
}
