package sandbox

import (
	"fmt"
	"regexp"

	"rehome/backend/ids"
)

// RecordSchema is the version of the Record this build writes.
const RecordSchema = 1

// maxStoredCode bounds the code kept in a record.
const maxStoredCode = 256 << 10

// Record is one run as the runs bucket keeps it (the run service of
// package core stores it): what ran, against which
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

// NewRunID returns a new run id: time-sortable like every record key
// (see package ids).
func NewRunID() string { return ids.New() }

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
