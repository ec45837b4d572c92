// Package atomicfile holds rehome's one way to write a file so that it
// appears under its name complete or not at all, and stays there after a
// crash or a power cut: the data goes to a temporary file beside the
// destination, which is synced, given its mode, renamed over the
// destination, and the folder is synced so that the rename itself is on
// disk.
//
// github.com/google/renameio/v2 was weighed: it syncs the file but not the
// folder after the rename, may stage the file in $TMPDIR, and cannot name
// the file after it is written (an upload is named by its hash).
package atomicfile
