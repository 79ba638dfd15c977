package postgres

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/groupcommit/committest"
)

// configValue reads key's override inside a write transaction of d.
func configValue(t *testing.T, d *Driver, key string) string {
	t.Helper()
	var v string
	err := d.Write(context.Background(), func(dt store.DriverTx) error {
		rows, err := dt.ConfigRows()
		for _, r := range rows {
			if r.Key == key {
				v = r.Value
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestConfigInWriteTransactions: a write transaction reads the config
// overrides as stored, whether another instance changed them, it changed
// them itself, or a write that changed them was rolled back.
func TestConfigInWriteTransactions(t *testing.T) {
	ctx := context.Background()
	_, ad, dsn := mustOpen(t)
	_, bd := mustOpenURL(t, dsn)
	put := func(d *Driver, v string, fail bool) error {
		return d.Write(ctx, func(dt store.DriverTx) error {
			if err := dt.PutConfig("k", v, t0); err != nil {
				return err
			}
			if fail {
				return engine.Errorf(engine.EINVALID, "refused")
			}
			return nil
		})
	}
	steps := []struct {
		name string
		do   func() error
		want string
	}{
		{"nothing stored", func() error { return nil }, ""},
		{"a stores 1", func() error { return put(ad, "1", false) }, "1"},
		{"b stores 2", func() error { return put(bd, "2", false) }, "2"},
		{"a's store of 3 rolled back", func() error { put(ad, "3", true); return nil }, "2"},
		{"b resets", func() error {
			return bd.Write(ctx, func(dt store.DriverTx) error { return dt.DeleteConfig("k") })
		}, ""},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		for _, d := range []*Driver{ad, ad, bd} { // a twice: once from its cache
			if got := configValue(t, d, "k"); got != s.want {
				t.Errorf("%s: k = %q, want %q", s.name, got, s.want)
			}
		}
	}
	err := ad.Write(ctx, func(dt store.DriverTx) error {
		if err := dt.PutConfig("k", "4", t0); err != nil {
			return err
		}
		rows, err := dt.ConfigRows()
		if err != nil {
			return err
		}
		if !slices.Equal(rows, []store.ConfigRow{{Key: "k", Value: "4"}}) {
			t.Errorf("rows after PutConfig in the same transaction: %v", rows)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestInsertRuleTextOfNewRule: texts of a rule inserted in the same write
// are answered without waiting for the server, and agree with it.
func TestInsertRuleTextOfNewRule(t *testing.T) {
	ctx := context.Background()
	db, d, _ := mustOpen(t)
	mustCreate(t, db, "tool.old")
	text := func(rule, s string) store.RuleText {
		return store.RuleText{RuleID: rule, Kind: store.KindExample, Text: s, SHA256: store.TextSHA256(s)}
	}
	err := d.Write(ctx, func(dt store.DriverTx) error {
		r := engine.NewRule("tool.new", "tool_preference", engine.SeverityShould, "Text", engine.Scope{}, engine.DefaultConfig(), t0)
		if err := dt.InsertRule(store.RuleRow{Rule: r}, t0); err != nil {
			return err
		}
		for _, s := range []struct {
			op       string
			x        store.RuleText
			inserted bool
		}{
			{"insert", text("tool.new", "one"), true},
			{"insert", text("tool.new", "one"), false},
			{"insert", text("tool.new", "two"), true},
			{"delete", text("tool.new", "one"), false},
			{"insert", text("tool.new", "one"), true},
			{"insert", text("tool.new", "two"), false},
			{"insert", text("tool.old", "Text of tool.old"), false},
			{"insert", text("tool.old", "three"), true},
		} {
			if s.op == "delete" {
				if err := dt.DeleteRuleText(s.x.RuleID, s.x.SHA256); err != nil {
					return err
				}
				continue
			}
			got, err := dt.InsertRuleText(s.x, t0)
			if err != nil {
				return err
			}
			if got != s.inserted {
				t.Errorf("InsertRuleText(%s, %q) = %v, want %v", s.x.RuleID, s.x.Text, got, s.inserted)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rule, want := range map[string]int{"tool.new": 2, "tool.old": 2} {
		texts, err := d.Reader(ctx).RuleTexts(rule)
		if err != nil || len(texts) != want {
			t.Errorf("%s: %d texts (%v), want %d", rule, len(texts), err, want)
		}
	}
}

// TestGroupMemberCancelled: a member whose context ends while its writes
// are queued fails with the context's error and writes nothing; the
// members before and after it are written.
func TestGroupMemberCancelled(t *testing.T) {
	db, d, _ := mustOpen(t)
	release, waitFirst := committest.Hold(t, db)
	ids := []string{"tool.a", "tool.b", "tool.c"}
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		wg.Go(func() {
			errs[i] = d.Write(ctx, func(dt store.DriverTx) error {
				r := engine.NewRule(id, "tool_preference", engine.SeverityShould, "Text", engine.Scope{}, engine.DefaultConfig(), t0)
				if err := dt.InsertRule(store.RuleRow{Rule: r}, t0); err != nil {
					return err
				}
				if id == "tool.b" {
					cancel() // its insert is still queued
				}
				return nil
			})
		})
		committest.WaitQueued(d.writer, i+1)
	}
	release()
	wg.Wait()
	if err := waitFirst(); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		cancelled := id == "tool.b"
		if cancelled != errors.Is(errs[i], context.Canceled) || !cancelled && errs[i] != nil {
			t.Errorf("%s: %v, want cancelled %v", id, errs[i], cancelled)
		}
		if ok, err := d.Reader(context.Background()).RuleExists(id); err != nil || ok == cancelled {
			t.Errorf("%s stored %v (%v), want %v", id, ok, err, !cancelled)
		}
	}
}
