package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Checkpointing. SQLite's automatic checkpoint runs inside the commit that
// pushes the write-ahead log past 1000 frames, on the committing connection:
// with one write connection, that commit and every write queued behind it
// wait for the whole checkpoint (copying the log into the database file and
// two fsyncs), which made the tail latency of writes several times their
// median. So the write connection has wal_autocheckpoint(0), and a
// checkpointer goroutine with a connection of its own does the same work:
//
//   - after a commit it waits one poll interval, then reads the number of
//     frames in the log from the wal-index header (walIndexFrames);
//   - from ckptFrames frames on, it runs a PASSIVE checkpoint, which takes no
//     lock that writers or readers wait for and copies the frames no reader
//     still needs; once it has copied them all, the next write starts the
//     log again from its beginning. That write also fsyncs the log's new
//     header (SQLite requires it), so checkpointing small logs often would
//     put an fsync in a write every few hundred milliseconds: ckptFrames is
//     large for that reason (4096 frames: one restart, so one such fsync,
//     every several seconds under a steady write load);
//   - when the log has nonetheless reached restartFrames (a write came during
//     every passive checkpoint, or a reader held on to the log when writes
//     wanted to start it again), a RESTART checkpoint follows. It holds this
//     process's write connection, so writers queue in Go instead of polling
//     SQLite's lock, copies the few frames written since the passive one,
//     waits (at most checkpointBusyMS) for readers to leave the log and lets
//     the next write start it again. When a reader (of another process, say)
//     keeps it waiting, it gives up, and the next one waits for a backoff that
//     doubles from one interval up to maxRestartBackoff, so such a reader
//     cannot stall writes for long.
//
// The log thus stays under restartFrames plus what is written in one poll
// interval (except while a reader holds on to it); journal_size_limit gives back the disk space of a larger log (a
// burst, a long reader) once it starts again. Crash safety is SQLite's: a
// checkpoint copies only committed frames, and every frame stays in the log
// until it starts again. Checkpoint errors are logged and retried after the
// next write; they never fail one. Close stops the goroutine before its own
// TRUNCATE checkpoint.
const (
	checkpointInterval = 250 * time.Millisecond
	ckptFrames         = 4096 // 16 MiB of 4 KiB pages
	restartFrames      = 2 * ckptFrames
	walSizeLimit       = restartFrames * 4096
	checkpointBusyMS   = 100
	maxRestartBackoff  = 5 * time.Second
)

// ckptConfig is the checkpointer's timing and thresholds (in frames); tests
// shorten them.
type ckptConfig struct {
	interval        time.Duration
	frames, restart int64
}

var defaultCkpt = ckptConfig{interval: checkpointInterval, frames: ckptFrames, restart: restartFrames}

// checkpointer copies the write-ahead log into the database file in the
// background (see the comment above).
type checkpointer struct {
	ckptConfig
	pool    *sql.DB // one connection, used by run only
	write   *sql.DB // the store's write pool, held during a RESTART
	shmPath string  // the wal-index file
	log     *slog.Logger

	dirty       chan struct{}    // capacity 1: a commit since the last poll
	hurry       atomic.Bool      // a write failed for space: checkpoint and truncate at the next poll
	shm         *os.File         // opened at the first poll
	clock       func() time.Time // the store's (times the backoff)
	nextRestart time.Time        // no RESTART before (after a busy one)
	backoff     time.Duration    // after the last busy RESTART (0 after a finished one)
	stop        chan struct{}
	done        chan struct{}
	stopOnce    sync.Once

	// passes counts the checkpoint passes run (for tests).
	mu     sync.Mutex
	passes int
}

// ckptResult is the row of PRAGMA wal_checkpoint: whether it could not
// finish (busy), the frames in the log and the frames copied.
type ckptResult struct {
	busy, frames, copied int64
}

// startCheckpointer opens the checkpointer's connection (the writer's
// pragmas but a short busy timeout, which bounds how long a RESTART
// checkpoint makes writers wait) and starts its goroutine. Its errors are
// EUNAVAILABLE (see openPool).
func startCheckpointer(ctx context.Context, path string, write *sql.DB, log *slog.Logger, cfg ckptConfig, clock func() time.Time) (*checkpointer, error) {
	dsn := fileURL(path) + fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=synchronous(NORMAL)", checkpointBusyMS)
	pool, err := openPool(ctx, path, dsn, 1)
	if err != nil {
		return nil, err
	}
	c := &checkpointer{
		ckptConfig: cfg, pool: pool, write: write, shmPath: path + "-shm", log: log, clock: clock,
		dirty: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	go c.run()
	return c, nil
}

// notify tells the checkpointer that a transaction committed. It never blocks.
func (c *checkpointer) notify() {
	select {
	case c.dirty <- struct{}{}:
	default:
	}
}

// urgent asks for a checkpoint that truncates the log at the next poll,
// whatever its length: a write failed for space. It never blocks.
func (c *checkpointer) urgent() {
	c.hurry.Store(true)
	c.notify()
}

// run waits for a commit, lets the following ones gather for one interval,
// then checkpoints if the log is long enough, until close.
func (c *checkpointer) run() {
	defer close(c.done)
	timer := time.NewTimer(c.interval)
	timer.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-c.dirty:
		}
		timer.Reset(c.interval)
		select {
		case <-c.stop:
			timer.Stop()
			return
		case <-timer.C:
		}
		if c.hurry.Swap(false) {
			if _, err := c.truncate(context.Background()); err != nil {
				c.log.Warn("store: checkpoint after a write failed for space failed", "err", err.Error())
			}
			continue
		}
		if !c.due() {
			continue
		}
		if _, err := c.pass(context.Background()); err != nil {
			c.log.Warn("store: background checkpoint failed; retrying after the next write", "err", err.Error())
		}
	}
}

// due reports whether the log has reached c.frames frames (or whether its
// length is unknown).
func (c *checkpointer) due() bool {
	n, ok := c.walIndexFrames()
	return !ok || n >= c.frames
}

// walIndexFrames reads the number of frames in the log (mxFrame) from the
// wal-index header, the first 48 bytes of the -shm file, which SQLite keeps
// twice in a row (https://sqlite.org/walformat.html, "The WAL-Index
// Header"); it reports false when it cannot read them or the two copies
// differ (a commit was updating them), and the caller checkpoints anyway.
func (c *checkpointer) walIndexFrames() (int64, bool) {
	if c.shm == nil {
		f, err := os.Open(c.shmPath)
		if err != nil {
			return 0, false
		}
		c.shm = f
	}
	var b [96]byte
	if _, err := c.shm.ReadAt(b[:], 0); err != nil || !bytes.Equal(b[:48], b[48:]) {
		return 0, false
	}
	return int64(binary.NativeEndian.Uint32(b[16:20])), true
}

// pass runs one PASSIVE checkpoint, then a RESTART one holding the write
// connection when the log has reached c.restart frames (unless a busy one
// was tried less than c.backoff ago), and returns the last result.
func (c *checkpointer) pass(ctx context.Context) (ckptResult, error) {
	c.mu.Lock()
	c.passes++
	c.mu.Unlock()
	r, err := c.checkpoint(ctx, "PASSIVE")
	if err != nil || r.frames < c.restart || c.clock().Before(c.nextRestart) {
		return r, err
	}
	w, err := c.write.Conn(ctx) // this process's writers wait in Go meanwhile
	if err != nil {
		return r, fmt.Errorf("store: checkpoint: hold the write connection: %w", err)
	}
	defer w.Close()
	if r, err = c.checkpoint(ctx, "RESTART"); err != nil || r.busy == 0 {
		c.backoff = 0
		return r, err
	}
	c.backoff = min(max(2*c.backoff, c.interval), maxRestartBackoff)
	c.nextRestart = c.clock().Add(c.backoff)
	return r, nil
}

// truncate runs a TRUNCATE checkpoint holding the write connection: it
// copies the whole log into the database file and truncates the log to zero
// bytes, when no reader holds on to it.
func (c *checkpointer) truncate(ctx context.Context) (ckptResult, error) {
	c.mu.Lock()
	c.passes++
	c.mu.Unlock()
	w, err := c.write.Conn(ctx)
	if err != nil {
		return ckptResult{}, fmt.Errorf("store: checkpoint: hold the write connection: %w", err)
	}
	defer w.Close()
	return c.checkpoint(ctx, "TRUNCATE")
}

func (c *checkpointer) checkpoint(ctx context.Context, mode string) (ckptResult, error) {
	var r ckptResult
	if err := c.pool.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&r.busy, &r.frames, &r.copied); err != nil {
		return r, fmt.Errorf("store: checkpoint (%s): %w", mode, err)
	}
	return r, nil
}

// close stops the goroutine, waits for it to return and closes the
// connection. Calling it again does nothing. Its error is internal.
func (c *checkpointer) close() error {
	var err error
	c.stopOnce.Do(func() {
		close(c.stop)
		<-c.done
		if c.shm != nil {
			c.shm.Close()
		}
		err = c.pool.Close()
	})
	return err
}
