// Package models knows the open-weight models people run locally and says,
// with the arithmetic shown, whether one fits a machine: the weights as
// llama.cpp quantizes them, the KV cache for a context length, the compute
// buffers and the runtime's overhead, against the VRAM and RAM detected by
// package hardware or given by hand.
//
// The catalog is data (catalog.json, embedded): each model's architecture
// figures from its published config. Weight sizes are derived tensor by
// tensor with llama.cpp's quantization rules, which reproduces published GGUF
// file sizes to a fraction of a percent. A local .gguf file can stand in for
// a catalog entry: its header gives the exact architecture and tensor sizes.
package models
