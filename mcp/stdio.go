package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"
)

// stdioFrames sits between the process's stdin and stdout and the SDK's
// IOTransport, and makes the stdio session keep going where the SDK would
// end it or drop work:
//   - it reads the newline-delimited frames itself (up to maxFrame bytes
//     each, the only frame limit: the SDK's own is turned off); a frame that
//     is not JSON (-32700) or not one JSON-RPC 2.0 message (-32600: see
//     checkFrame) is answered with a JSON-RPC error with id null and the
//     session goes on (the SDK ends the whole session on one frame it cannot
//     decode: modelcontextprotocol/go-sdk#1209);
//   - after passing on an initialize request it waits for its answer before
//     passing on anything else, as the protocol asks of clients (a client
//     piping a file sends everything at once);
//   - at the end of stdin it waits until every request it passed on has been
//     answered (at most drainTimeout), so `lexsona mcp < requests.jsonl`
//     answers every request instead of dropping those still in flight.
type stdioFrames struct {
	out     io.Writer
	writeMu sync.Mutex // one whole frame at a time on out

	mu      sync.Mutex
	changed *sync.Cond
	pending map[string]bool // ids of requests passed on and not answered yet
}

// drainTimeout bounds how long the end of stdin waits for answers.
const drainTimeout = 30 * time.Second

// maxFrame is the longest frame read; a longer one is answered as a parse
// error and skipped.
const maxFrame = 64 << 20

func newStdioFrames(out io.Writer) *stdioFrames {
	f := &stdioFrames{out: out, pending: map[string]bool{}}
	f.changed = sync.NewCond(&f.mu)
	return f
}

// pump copies frames from in to w (the SDK's side) until in ends or ctx is
// done, then waits for the answers and closes w.
func (f *stdioFrames) pump(ctx context.Context, in io.Reader, w *io.PipeWriter) {
	defer w.Close()
	r := bufio.NewReader(in)
	for ctx.Err() == nil {
		line, tooLong, err := readFrame(r, maxFrame)
		if tooLong {
			f.write(rpcError(rpcParseError, "Parse error: the frame is longer than the "+strconv.Itoa(maxFrame>>20)+" MiB limit"))
		} else if frame := bytes.TrimSpace(line); len(frame) > 0 {
			if code, msg := checkFrame(frame); code != 0 {
				f.write(rpcError(code, msg))
			} else {
				ids, initialize := requestIDs(frame)
				f.track(ids)
				if _, werr := w.Write(append(frame, '\n')); werr != nil {
					return
				}
				if initialize {
					f.wait(ctx, time.Now().Add(drainTimeout))
				}
			}
		}
		if err != nil {
			break
		}
	}
	f.wait(ctx, time.Now().Add(drainTimeout))
}

// readFrame reads one line; a line over limit bytes is consumed whole and
// reported by tooLong, with no bytes.
func readFrame(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		var chunk []byte
		chunk, err = r.ReadSlice('\n')
		if tooLong = tooLong || len(line)+len(chunk) > limit; !tooLong {
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if tooLong {
				line = nil
			}
			return line, tooLong, err
		}
	}
}

// Write is the SDK's side of stdout: it notes the answered ids, then writes
// the frame without Go type names (see cleanFrame).
func (f *stdioFrames) Write(p []byte) (int, error) {
	f.answered(responseIDs(p))
	if _, err := f.write(cleanFrame(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (f *stdioFrames) write(p []byte) (int, error) {
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	return f.out.Write(p)
}

func (f *stdioFrames) track(ids []string) {
	f.mu.Lock()
	for _, id := range ids {
		f.pending[id] = true
	}
	f.mu.Unlock()
}

func (f *stdioFrames) answered(ids []string) {
	f.mu.Lock()
	for _, id := range ids {
		delete(f.pending, id)
	}
	f.mu.Unlock()
	f.changed.Broadcast()
}

// wait blocks until no request is pending, ctx is done or deadline passes.
func (f *stdioFrames) wait(ctx context.Context, deadline time.Time) {
	stop := context.AfterFunc(ctx, f.changed.Broadcast)
	defer stop()
	timer := time.AfterFunc(time.Until(deadline), f.changed.Broadcast)
	defer timer.Stop()
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.pending) > 0 && ctx.Err() == nil && time.Now().Before(deadline) {
		f.changed.Wait()
	}
}

// message is the part of a JSON-RPC message the framing looks at.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// messages decodes a frame as one message or a batch of them.
func messages(frame []byte) []message {
	frame = bytes.TrimSpace(frame)
	var ms []message
	if len(frame) > 0 && frame[0] == '[' {
		_ = json.Unmarshal(frame, &ms)
		return ms
	}
	var m message
	if json.Unmarshal(frame, &m) == nil {
		ms = append(ms, m)
	}
	return ms
}

// requestIDs returns the ids of the requests in frame (messages with a
// method and an id) and whether one of them is initialize.
func requestIDs(frame []byte) (ids []string, initialize bool) {
	for _, m := range messages(frame) {
		if m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" {
			ids = append(ids, idKey(m.ID))
			initialize = initialize || m.Method == "initialize"
		}
	}
	return ids, initialize
}

// responseIDs returns the ids of the responses in frame (messages with an id
// and no method).
func responseIDs(frame []byte) []string {
	var ids []string
	for _, m := range messages(frame) {
		if m.Method == "" && len(m.ID) > 0 {
			ids = append(ids, idKey(m.ID))
		}
	}
	return ids
}

// idKey is an id's canonical text, so that 1 and 1.0 or "a" spelled with
// escapes compare equal.
func idKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
