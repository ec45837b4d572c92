// Package dataset previews a data file a user dropped: its format, its
// first rows and the type of each column, read safely and fast.
//
// A preview never reads a whole file. It reads a bounded head (1 MiB by
// default, at most 8 MiB for very wide rows), so a 2 GB CSV shows its head
// as fast as a small one, and estimates the row count from the size.
// Malformed input does not fail the preview: ragged rows, stray quotes,
// non-UTF-8 text and binary content are reported in plain words in
// Problems, next to whatever could still be shown.
package dataset
