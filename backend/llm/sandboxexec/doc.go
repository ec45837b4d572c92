// Package sandboxexec runs the ask loop's cells in rehome's sandbox.
//
// Session is the llm.Executor of every face: a conversation's cells run in
// one sandbox session (a Python kernel in a hardened container, see
// sandbox.Session), started at the first cell, so what one cell defines is
// there for the next, with the conversation's files and the assistant's
// knowledge under /mnt/data. A cell is interrupted when its context ends
// (Stop, Ctrl-C); the session keeps its state.
package sandboxexec
