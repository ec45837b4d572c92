package core

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rehome/sandbox"
)

// Find is the folder of session id, checked: an id is a folder name of the
// sessions folder (no separators, not hidden), and the folder holds a
// session (its session.json). *SessionIDError names the id otherwise.
func (s *Sessions) Find(id string) (string, error) {
	if !validSessionID(id) {
		return "", &SessionIDError{ID: id}
	}
	d := s.Dir(id)
	if _, err := os.Stat(filepath.Join(d, "session.json")); err != nil {
		return "", &SessionIDError{ID: id, Missing: true}
	}
	return d, nil
}

// validSessionID is the id rule: a folder name of the sessions folder (no
// separators, not hidden).
func validSessionID(id string) bool {
	return id != "" && !strings.ContainsAny(id, `/\.`) && filepath.Base(id) == id
}

// SessionIDError is a session id that is not one, or names no session.
type SessionIDError struct {
	ID      string
	Missing bool // a well-formed id of no session
	Open    bool // of no session this process holds open (Sessions.Opened)
}

// Error says what is wrong with the id.
func (e *SessionIDError) Error() string {
	if e.Open {
		return errNotOpen(e.ID)
	}
	if e.Missing {
		return fmt.Sprintf("no session %s", e.ID)
	}
	return fmt.Sprintf("%q is not a session id", e.ID)
}

// Cells are session id's recorded cells, in order (a running session's
// or an ended one's).
func (s *Sessions) Cells(id string) ([]sandbox.CellResult, error) {
	d, err := s.Find(id)
	if err != nil {
		return nil, err
	}
	return sandbox.ReadCells(d)
}

// ExportFormats are the formats Export writes: a Jupyter notebook with
// the outputs, or a Python file.
var ExportFormats = []string{"ipynb", "py"}

// Export writes session id's cells in format ("ipynb" or "py") and says
// how many cells it holds.
func (s *Sessions) Export(id, format string) ([]byte, int, error) {
	cells, err := s.Cells(id)
	if err != nil {
		return nil, 0, err
	}
	var b bytes.Buffer
	switch format {
	case "ipynb":
		err = sandbox.WriteNotebook(&b, cells)
	case "py":
		err = sandbox.WritePython(&b, cells)
	default:
		return nil, 0, fmt.Errorf("export a session as %q or %q, not %q", ExportFormats[0], ExportFormats[1], format)
	}
	if err != nil {
		return nil, 0, err
	}
	return b.Bytes(), len(cells), nil
}

// List lists the data folder's sessions, running or ended (asking Podman
// which still run).
func (s *Sessions) List(ctx context.Context) ([]sandbox.SessionInfo, error) {
	e, err := s.c.Engine(ctx)
	if err != nil {
		return nil, err
	}
	list, err := e.ListSessions(ctx, filepath.Join(s.c.dir, SessionsDir))
	if list == nil && err == nil {
		list = []sandbox.SessionInfo{}
	}
	return list, err
}

// Exec runs code as ss's next cell (timeout 0: the session's) and keeps
// the cell's record, as a run's, with source ("session", "ask"). When the
// cell ran but its record could not be stored, the result comes back with
// an error wrapping ErrNotKept.
func (s *Sessions) Exec(ctx context.Context, ss *sandbox.Session, code string, timeout time.Duration, progress func(sandbox.Progress)) (*sandbox.CellResult, error) {
	res, err := ss.Exec(ctx, code, timeout, progress)
	if err != nil {
		return nil, err
	}
	if err := s.Keep(code, res, "session"); err != nil {
		s.c.log.Warn("cell not kept", "session", ss.ID(), "err", err)
		return res, fmt.Errorf("%w: %v", ErrNotKept, err)
	}
	return res, nil
}
