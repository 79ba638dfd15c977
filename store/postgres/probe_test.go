package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// TestWritableProbesFullDisk: a full disk that a write met is reported
// until the probe's interval has passed; the probe then writes, its commit
// clears the fault and its run is in store_jobs.
func TestWritableProbesFullDisk(t *testing.T) {
	ctx := context.Background()
	db, d, _ := mustOpen(t)
	db.NoteError(store.NewFault(store.FaultDiskFull, "", errors.New("disk_full met by a write")))
	if err := db.Writable(ctx); store.Fault(err) != store.FaultDiskFull {
		t.Fatalf("Writable just after the fault: %v, want the full disk until the probe is due", err)
	}
	d.probeEvery = 0
	if err := db.Writable(ctx); err != nil {
		t.Fatalf("Writable once the probe is due: %v", err)
	}
	at, found, err := d.Reader(ctx).(queries).JobRanAt(sqldriver.WriteProbe)
	if err != nil || !found || time.Since(at) > time.Minute {
		t.Fatalf("the probe's run: %v, %v, %v", at, found, err)
	}
}
