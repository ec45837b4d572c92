package sandbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/containers/podman/v4/pkg/bindings/containers"
)

// Interrupting, restarting and stopping sessions.

// Interrupt sends KeyboardInterrupt to the running cell (if any); the
// kernel is killed if the cell does not stop within interruptGrace.
func (s *Session) Interrupt() error {
	if s.Ended() != "" {
		return ErrSessionEnded
	}
	return s.send(map[string]any{"op": "interrupt"})
}

// Restart replaces the kernel with a fresh one: every variable and import
// is gone, the files in /mnt/data stay.
func (s *Session) Restart(ctx context.Context) error {
	if s.Ended() != "" {
		return ErrSessionEnded
	}
	s.send(map[string]any{"op": "interrupt"}) // a running cell ends first
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.control(ctx, map[string]any{"op": "restart"}, 30*time.Second)
}

// Stop ends the session: its container is removed. Its folder stays.
func (s *Session) Stop(ctx context.Context) error {
	if s.Ended() == "" {
		s.send(map[string]any{"op": "stop"})
	}
	if s.e == nil { // reached through its relay: the supervisor ends it
		select {
		case <-s.endedCh:
			// The relay closes the stream once the container is gone.
			select {
			case <-s.readDone:
			case <-time.After(30 * time.Second):
			}
		case <-time.After(10 * time.Second):
		}
		s.detach()
		if s.Ended() == "" {
			return errors.New("the session did not stop within 10s: `rehome sandbox clean` removes its sandbox")
		}
		return nil
	}
	s.detach()
	s.end("the session was stopped")
	err := s.e.removeSession(ctx, s.info.Container)
	if err == nil && s.release != nil {
		s.release()
	}
	return err
}

// removeSession removes a session's container and waits until it is gone
// (a container that exits on its own is also being removed by Podman).
func (e *Engine) removeSession(ctx context.Context, id string) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(e.api(ctx)), 30*time.Second)
	defer cancel()
	// Podman may be removing it already (it exited): then the removal
	// fails, and the wait below is what counts.
	rmErr := removeContainer(rctx, id)
	for rctx.Err() == nil {
		if ok, err := containers.Exists(rctx, id, nil); err == nil && !ok {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
		if rmErr != nil {
			rmErr = removeContainer(rctx, id)
		}
	}
	return fmt.Errorf("the session's sandbox %s is still there (%v): `rehome sandbox clean` removes it", id[:12], rmErr)
}

func (s *Session) kill() {
	if s.e == nil {
		s.send(map[string]any{"op": "stop"})
		return
	}
	kctx, cancel := context.WithTimeout(context.WithoutCancel(s.e.api(context.Background())), 15*time.Second)
	defer cancel()
	containers.Kill(kctx, s.info.Container, new(containers.KillOptions).WithSignal("KILL"))
	s.end("the session's sandbox was killed")
}

// Close detaches from the session and leaves it running.
func (s *Session) Close() { s.detach() }

// detach closes the attach (or the relay's connection) and leaves the
// session running.
func (s *Session) detach() {
	if s.closeIO != nil {
		s.closeIO()
	}
}
