// Package knowledge hosts an assistant's knowledge files, the way
// ChatGPT's file_search does, on this machine: each file copied once into
// the assistants' content-addressed knowledge library (assistant.Library,
// <data>/knowledge/<sha256>/<name>, shared by every assistant that has
// the file), parsed — inside the sandbox
// for PDF, DOCX, PPTX, XLSX and HTML, since the files are untrusted —
// into pages and sections, cut into overlapping chunks, indexed with
// bleve (BM25) in one index per assistant, and searched by the ask loop's
// file_search tool, whose passages become the answer's citations.
package knowledge
