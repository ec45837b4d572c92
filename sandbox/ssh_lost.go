package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
	"time"

	"rehome/sandbox/link"
)

// Sandboxes a lost link left on a team host. A run whose link dropped
// cannot remove its container; the container ends by itself at its time
// limit (it is created with --timeout and --rm), and rehome removes it
// sooner: at once if the host answers again within lostRetry, else on the
// next connection to that host (by this or another rehome process; the
// owner sweep cannot, since this process is alive). Each is remembered as
// an empty file cacheDir/lost/HOST/CONTAINER.

// lostRetry is how long a run's background cleanup keeps trying to reach
// the host again.
const lostRetry = 30 * time.Second

// lostDir is the folder of the containers left on the service at uri.
func (e *Engine) lostDir(uri string) string {
	sum := sha256.Sum256([]byte(uri))
	return filepath.Join(e.cacheDir(), "lost", hex.EncodeToString(sum[:8]))
}

// rememberLost records a container the lost link left, and tries to remove
// it now in the background.
func (e *Engine) rememberLost(cid string) {
	uri := e.connection().URI
	dir := e.lostDir(uri)
	if os.MkdirAll(dir, 0o700) == nil {
		os.WriteFile(filepath.Join(dir, cid), nil, 0o600)
	}
	ctx := e.background()
	go func() {
		delay := time.Second
		deadline := time.Now().Add(lostRetry)
		for time.Now().Before(deadline) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
			c, err := link.OpenRemote(ctx, uri, e.opts.Connect)
			if err != nil {
				delay = min(2*delay, 8*time.Second)
				continue
			}
			e.removeLost(ctx, c)
			c.Close()
			return
		}
	}()
}

// removeLost removes the containers remembered for conn's service, and
// returns how many were removed (or gone already).
func (e *Engine) removeLost(ctx context.Context, conn *link.Connection) int {
	dir := e.lostDir(conn.URI)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	api := callCtx{Context: ctx, conn: conn.Context()}
	n := 0
	for _, ent := range ents {
		if err := removeContainer(api, ent.Name()); err == nil {
			os.Remove(filepath.Join(dir, ent.Name()))
			n++
		}
	}
	return n
}

// background is a context that Close ends, for the engine's own work
// after a run has returned.
func (e *Engine) background() context.Context {
	e.bgOnce.Do(func() { e.bgCtx, e.bgStop = context.WithCancel(context.Background()) })
	return e.bgCtx
}

// stopBackground ends the engine's background work.
func (e *Engine) stopBackground() {
	e.bgOnce.Do(func() { e.bgCtx, e.bgStop = context.WithCancel(context.Background()) })
	e.bgStop()
}

// bgState is the engine's background work (kept apart from Engine's
// fields in engine.go).
type bgState struct {
	bgOnce sync.Once
	bgCtx  context.Context
	bgStop context.CancelFunc
}
