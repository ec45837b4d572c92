// Package llamarun runs llama.cpp's llama-server for a model the user
// carries (backend/localmodels): it finds the runtime rehome ships (a CPU
// build and a Vulkan build, for NVIDIA, AMD and Intel GPUs alike) and picks
// the Vulkan one only when it sees a Vulkan GPU; it plans the context and
// the layers to offload from the fit estimate for this machine; it starts
// the server on loopback, on a free port, with a random API key (the
// server itself allows every origin without one), waits for it to be
// healthy with progress, keeps its log, turns a crash, an out-of-memory or
// a missing driver into words, and stops it when idle or when rehome ends.
package llamarun
