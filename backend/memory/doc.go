// Package memory holds what the user asked a model to remember, as
// ChatGPT's saved memories do: short facts ("prefers metric units"), each a
// record of the store's memories bucket, shared by every chat or owned by
// one assistant. It keeps them (add, edit, forget and restore, delete,
// search), reads the list ChatGPT shows under Settings → Personalization →
// Manage memories (Parse), holds the per-assistant choice (on, off, its
// own) and writes the block of the system prompt that gives a model the
// memories within a token budget (Block), each as quoted data.
//
// Bounds: a memory holds at most MaxChars characters, a data folder at
// most MaxMemories memories, an import at most MaxImportBytes bytes.
package memory
