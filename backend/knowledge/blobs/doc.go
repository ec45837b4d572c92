// Package blobs is rehome's content-addressed copy of knowledge files:
// each file's bytes once, at <dir>/<sha256 in hex>, read-only, so that an
// assistant keeps answering from its files when the originals move or
// change. The same layout as the copies import makes under
// <data>/knowledge, so both share one store.
package blobs
