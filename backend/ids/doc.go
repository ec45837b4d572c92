// Package ids makes the ids of rehome's records and runs: 26 characters
// of lower-case Crockford base32 that sort by creation time. The store
// keys every record with one, and a sandbox run is named by one.
package ids
