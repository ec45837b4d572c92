// Package localmodels keeps the GGUF model files the user carries to this
// machine: each is checked (a GGUF header that parses, a file as long as its
// header says), described from its header (architecture, layers, context
// length, quantisation, size, whether it is an embedding model), hashed and
// registered in the database, either where it lies or as rehome's own copy
// under <data>/models. Running one is backend/llamarun's.
package localmodels
