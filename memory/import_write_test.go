package memory

import (
	"errors"
	"testing"
)

// TestPipelineStopsTheReader: a writer that fails stops the reader, which
// sees errPipelineStopped at its next record; the writer's error is the
// result. A reader that fails after the writer took everything gives its
// own.
func TestPipelineStopsTheReader(t *testing.T) {
	boom := errors.New("boom")
	var readErr error
	sent := 0
	err := pipeline(func(on func(importRecord) error) error {
		for i := range 10000 {
			if readErr = on(importRecord{line: i}); readErr != nil {
				return readErr
			}
			sent++
		}
		return nil
	}, func(rec importRecord) error {
		if rec.line == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || !errors.Is(readErr, errPipelineStopped) || sent > 4+pipelineDepth+1 {
		t.Errorf("pipeline: %v; the reader saw %v after %d records", err, readErr, sent)
	}
	err = pipeline(func(on func(importRecord) error) error {
		if err := on(importRecord{}); err != nil {
			return err
		}
		return boom
	}, func(importRecord) error { return nil })
	if !errors.Is(err, boom) {
		t.Errorf("a failing reader: %v", err)
	}
}
