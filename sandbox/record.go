package sandbox

import (
	"fmt"
	"path/filepath"
	"regexp"

	"rehome/backend/store"
)

// RecordSchema is the version of the Record this build writes.
const RecordSchema = 1

// maxStoredCode bounds the code kept in a record.
const maxStoredCode = 256 << 10

// Record is one run as the runs bucket keeps it: what ran, against which
// file, and everything that came back (the output files stay on disk, in
// the run's folder; the record holds their names, sizes, hashes and paths).
type Record struct {
	Schema    int    `json:"schema"`
	ID        string `json:"id"`
	Code      string `json:"code"`
	InputPath string `json:"input_path,omitempty"`
	// Source says who asked: "cli", "app".
	Source string  `json:"source"`
	Result *Result `json:"result"`
}

// NewRunID returns a new run id: a store id, time-sortable like every
// record key.
func NewRunID() string { return store.NewID() }

// runIDPattern is the shape of every id NewRunID makes: 26 characters of
// Crockford's base32, lower case. Nothing else names a run, so an id can
// never be a path ("..", "../../x", "/etc").
var runIDPattern = regexp.MustCompile(`^[0-9a-hjkmnp-tv-z]{26}$`)

// CheckRunID refuses an id that NewRunID did not make.
func CheckRunID(id string) error {
	if !runIDPattern.MatchString(id) {
		return fmt.Errorf("%q is not a run id of rehome (26 letters and digits, as rehome makes them): leave the id empty and rehome picks one", id)
	}
	return nil
}

// RunDir is the folder under the data directory where a run's outputs go
// by default.
func RunDir(dataDir, id string) string { return filepath.Join(dataDir, "runs", id) }

// NewRecord makes the record of a finished run.
func NewRecord(req RunRequest, res *Result, source string) Record {
	code := req.Code
	if len(code) > maxStoredCode {
		code = code[:maxStoredCode]
	}
	r := *res
	r.Files = append([]File(nil), res.Files...)
	for i := range r.Files {
		r.Files[i].DataURL = "" // the file is on disk; keep the database small
	}
	return Record{Schema: RecordSchema, ID: res.ID, Code: code, InputPath: req.InputPath, Source: source, Result: &r}
}

// SaveRecord stores rec in the runs bucket.
func SaveRecord(st *store.Store, rec Record) error {
	if err := st.Put(store.Runs, rec.ID, rec); err != nil {
		return fmt.Errorf("store the run: %w", err)
	}
	return nil
}

// ListRecords returns up to limit runs, newest first.
func ListRecords(st *store.Store, limit int) ([]Record, error) {
	return store.List[Record](st, store.Runs, limit)
}

// GetRecord returns one run. A run written by a newer rehome is refused
// with an error wrapping store.ErrNewer.
func GetRecord(st *store.Store, id string) (Record, error) {
	var r Record
	if err := st.Get(store.Runs, id, &r); err != nil {
		return Record{}, err
	}
	if err := store.CheckSchema(store.Runs, id, r.Schema, RecordSchema); err != nil {
		return Record{}, err
	}
	return r, nil
}
