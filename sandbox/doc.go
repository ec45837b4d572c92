// Package sandbox runs untrusted Python — code a model wrote for ChatGPT's
// Code Interpreter — against one file of the user's, in a Podman container
// that has only that file, no network, a wall-clock kill, memory, pids and
// CPU ceilings, and a result channel that cannot be turned against the host.
//
// Limits and Config are plain data. Engine talks to a Podman service through
// the REST bindings, turns a Config and a job into a hardened container spec
// (buildSpec), runs it, and reads back what the code printed and wrote
// through the frame protocol of the runner baked into the image (see
// sandbox/recipe/runner.py). Doctor attacks each guarantee and reports which
// hold; its probes are the Python files under probes/.
package sandbox
