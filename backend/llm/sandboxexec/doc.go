// Package sandboxexec runs the ask loop's cells in rehome's sandbox.
//
// OneShot is the implementation until sessions land: each cell is a fresh
// sandbox run (sandbox.Engine.Run) with the conversation's file under
// /mnt/data, so no state carries over between cells — the loop says so in
// the python tool's description (llm.Loop.Stateless). A session-backed
// Executor replaces it by implementing the same llm.Executor.
package sandboxexec
