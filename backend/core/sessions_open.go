package core

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"rehome/sandbox"
)

// The sessions this process holds open — those a face opened on a file
// (the window's Code Interpreter screen) and those an answer runs its code
// in, one per conversation — and when each was last used: one rule for
// which gives way when the data folder's sessions are at their bound, the
// one used longest ago, whichever face opened it.

// openSessions is the Core's open sessions, by key: a face's session by
// its id, a conversation's by "conversation " and its id.
type openSessions struct {
	mu   sync.Mutex
	byID map[string]*openSession
}

// openSession is one open session and what ends it.
type openSession struct {
	s    *sandbox.Session // a face's session; nil for a conversation's
	used time.Time
	// mayGo reports whether it may give way now (nil: always): a
	// conversation's session that has started and is not answering.
	mayGo func() bool
	stop  func(context.Context) error
}

// conversationKey is the key of a conversation's session.
func conversationKey(id string) string { return "conversation " + id }

func (o *openSessions) put(key string, e *openSession) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.byID == nil {
		o.byID = map[string]*openSession{}
	}
	e.used = time.Now()
	o.byID[key] = e
}

// touch marks key used now; false when it is not open.
func (o *openSessions) touch(key string) (*openSession, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, ok := o.byID[key]
	if ok {
		e.used = time.Now()
	}
	return e, ok
}

// drop forgets key (when it is still e, unless e is nil) and returns it.
func (o *openSessions) drop(key string, e *openSession) *openSession {
	o.mu.Lock()
	defer o.mu.Unlock()
	got := o.byID[key]
	if got == nil || (e != nil && got != e) {
		return nil
	}
	delete(o.byID, key)
	return got
}

// oldest are the open sessions but keep, the one used longest ago first.
func (o *openSessions) oldest(keep string) ([]string, []*openSession) {
	o.mu.Lock()
	defer o.mu.Unlock()
	keys := make([]string, 0, len(o.byID))
	for k := range o.byID {
		if k != keep {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return o.byID[keys[i]].used.Before(o.byID[keys[j]].used) })
	list := make([]*openSession, len(keys))
	for i, k := range keys {
		list[i] = o.byID[k]
	}
	return keys, list
}

// Evict stops the open session used longest ago — a face's or a
// conversation's — other than keep's (a session id, or "" for none) and
// those that may not give way now (a conversation answering, one not
// started); false when there is none. A face that opens a session at the
// data folder's bound (ErrTooManySessions) calls it, and so does an
// answer's first cell.
func (s *Sessions) Evict(keep string) bool {
	return s.c.open.evict(keep, s.c)
}

func (o *openSessions) evict(keep string, c *Core) bool {
	// mayGo takes the ask service's lock: asked outside this one's.
	keys, list := o.oldest(keep)
	for i, e := range list {
		if e.s != nil && e.s.Ended() != "" {
			o.drop(keys[i], e) // ended by itself (idle): it holds no room
			continue
		}
		if e.mayGo != nil && !e.mayGo() {
			continue
		}
		if o.drop(keys[i], e) == nil {
			continue // gone meanwhile
		}
		c.log.Info("session stopped for a newer one", "session", keys[i])
		e.stop(context.Background())
		return true
	}
	return false
}

// closeAll stops every open session (the Core's close).
func (o *openSessions) closeAll() {
	for _, e := range takeAll(&o.mu, &o.byID) {
		e.stop(context.Background())
	}
}

// takeAll empties the map *m under mu and returns what it held, for the
// caller to close outside the lock.
func takeAll[K comparable, V any](mu *sync.Mutex, m *map[K]V) map[K]V {
	mu.Lock()
	defer mu.Unlock()
	all := *m
	*m = nil
	return all
}

// Open opens a session on the file at inputPath (empty: none) under the
// limits saved in Settings, or returns the running one this process
// opened on that file already. At the data folder's bound of sessions the
// one used longest ago gives way (Evict). ctx is the session's life.
func (s *Sessions) Open(ctx context.Context, inputPath string) (*sandbox.Session, error) {
	if ss := s.openOn(inputPath); ss != nil {
		return ss, nil
	}
	req := sandbox.SessionRequest{ID: sandbox.NewRunID(), InputPath: inputPath}
	ss, err := s.Start(ctx, req)
	if errors.Is(err, ErrTooManySessions) && s.Evict("") {
		ss, err = s.Start(ctx, req)
	}
	if err != nil {
		return nil, err
	}
	s.c.open.put(ss.ID(), &openSession{s: ss, stop: ss.Stop})
	return ss, nil
}

// openOn is the running session opened on the file at path, or nil.
func (s *Sessions) openOn(path string) *sandbox.Session {
	o := &s.c.open
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range o.byID {
		if e.s == nil || e.s.Ended() != "" {
			continue
		}
		in := e.s.Info().Input
		if (in == nil && path == "") || (in != nil && sameFile(in.HostPath, path)) {
			e.used = time.Now()
			return e.s
		}
	}
	return nil
}

func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// Opened is the session id that Open opened, marked used now: the id
// rule (Find's) first, then *SessionIDError (Open set) when this process
// holds no such session open.
func (s *Sessions) Opened(id string) (*sandbox.Session, error) {
	if !validSessionID(id) || strings.HasPrefix(id, "conversation ") {
		return nil, &SessionIDError{ID: id}
	}
	e, ok := s.c.open.touch(id)
	if !ok || e.s == nil {
		return nil, &SessionIDError{ID: id, Missing: true, Open: true}
	}
	return e.s, nil
}

// reach is session id: the one this process opened, or else the relay
// that `rehome session start` left (Find's id rule, then the session's
// own socket); done lets the relay go.
func (s *Sessions) reach(ctx context.Context, id string) (ss *sandbox.Session, done func(), err error) {
	if ss, err := s.Opened(id); err == nil {
		return ss, func() {}, nil
	}
	d, err := s.Find(id)
	if err != nil {
		return nil, nil, err
	}
	ss, err = sandbox.OpenSession(ctx, d)
	if err != nil {
		return nil, nil, err
	}
	return ss, func() { ss.Close() }, nil
}

// Interrupt sends KeyboardInterrupt to session id's running cell (one
// this process opened, or a relay's).
func (s *Sessions) Interrupt(ctx context.Context, id string) error {
	ss, done, err := s.reach(ctx, id)
	if err != nil {
		return err
	}
	defer done()
	return ss.Interrupt()
}

// Restart gives session id a fresh kernel: variables are lost, files
// stay.
func (s *Sessions) Restart(ctx context.Context, id string) error {
	ss, done, err := s.reach(ctx, id)
	if err != nil {
		return err
	}
	defer done()
	return ss.Restart(ctx)
}

// Stop ends session id; its cells stay for export.
func (s *Sessions) Stop(ctx context.Context, id string) error {
	ss, done, err := s.reach(ctx, id)
	if err != nil {
		return err
	}
	defer done()
	s.c.open.drop(id, nil)
	return ss.Stop(ctx)
}

// errNotOpen words a SessionIDError for an id this process holds no open
// session of.
func errNotOpen(id string) string {
	return fmt.Sprintf("session %s is not open here: open its file again", id)
}
