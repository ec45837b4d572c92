// Package peakrss measures the peak resident memory of a command a test
// runs, and only of that command.
//
// Why not the child's Rusage.Maxrss: Go starts a child with vfork
// (CLONE_VM), and on exec Linux folds the high-water mark of the memory
// the child leaves — the test process's own — into the child's
// ru_maxrss. A test binary that has grown to 259 MiB sees every child
// "peak" at 259 MiB (CI, stop 35). GNU time forks for real from its own
// small process, so the peak it reports is the command's.
//
// Test support only.
package peakrss
