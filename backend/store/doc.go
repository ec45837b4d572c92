// Package store keeps rehome's memory — assistants, audits, runs and
// settings — in one embedded bbolt file.
//
// Records are JSON documents carrying a schema version. Keys are ids from
// NewID, which sort by creation time, so List walks a bucket backwards and
// returns the newest records first without sorting in memory.
package store
