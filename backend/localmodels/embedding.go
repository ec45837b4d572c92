package localmodels

import (
	"encoding/binary"
	"io"
	"os"
	"strings"

	gguf "github.com/gpustack/gguf-parser-go"
)

// llama.cpp's pooling types (enum llama_pooling_type, the value of
// <arch>.pooling_type): none gives one vector per token, rank is a
// reranker's score (none, 0, and unset fall through to the other
// hints); mean, cls and last pool a text into one embedding.
const (
	poolingMean = 1
	poolingCLS  = 2
	poolingLast = 3
	poolingRank = 4
)

// embeddingTags are general.tags (copied from a model card's tags and
// pipeline tag by llama.cpp's converter) that only embedding models carry.
var embeddingTags = []string{"sentence-transformers", "sentence-similarity", "feature-extraction", "text-embeddings-inference"}

// embeddingOf reads from a GGUF header whether the model embeds text,
// which key said so (by), and the pooling llama-server must be told when
// the header names none (last for a causal model, whose last token has
// seen the whole text; mean for one that attends both ways).
//
// In order: <arch>.pooling_type mean, cls or last (rank is a reranker,
// not an embedding model); attention not causal (an encoder: BERT,
// nomic-bert, T5 encoder); general.tags of an embedding model
// (sentence-transformers, feature-extraction…); a name that says
// "embed" (Qwen3-Embedding, nomic-embed-text). A causal embedding model
// such as Qwen3-Embedding or e5-mistral has causal attention, so the
// attention alone does not tell it from a chat model.
func embeddingOf(path string, gf *gguf.GGUFFile) (embedding bool, by, pooling string) {
	a := gf.Architecture()
	kvs := gf.Header.MetadataKV
	causal := true
	if v, ok := kvs.Get(a.Architecture + ".attention.causal"); ok && v.ValueType == gguf.GGUFMetadataValueTypeBool {
		causal = v.ValueBool()
	} else if a.Architecture == "t5encoder" {
		causal = false
	}
	pooling = "last"
	if !causal {
		pooling = "mean"
	}
	if v, ok := kvs.Get(a.Architecture + ".pooling_type"); ok {
		switch p, _ := numeric(v); p {
		case poolingMean, poolingCLS, poolingLast:
			return true, a.Architecture + ".pooling_type", ""
		case poolingRank:
			return false, "", pooling
		}
	}
	if !causal {
		return true, a.Architecture + ".attention.causal", pooling
	}
	if v, ok := kvs.Get("general.tags"); ok && v.ValueType == gguf.GGUFMetadataValueTypeArray && v.ValueArray().Type == gguf.GGUFMetadataValueTypeString {
		for _, tag := range stringsOf(path, v.ValueArray()) {
			for _, want := range embeddingTags {
				if strings.EqualFold(strings.TrimSpace(tag), want) {
					return true, "general.tags", pooling
				}
			}
		}
	}
	for _, key := range []string{"general.name", "general.basename"} {
		if v, ok := kvs.Get(key); ok && v.ValueType == gguf.GGUFMetadataValueTypeString && strings.Contains(strings.ToLower(v.ValueString()), "embed") {
			return true, key, pooling
		}
	}
	return false, "", pooling
}

// numeric reads an integer-valued header entry whatever its width.
func numeric(v gguf.GGUFMetadataKV) (int64, bool) {
	if !v.ValueType.IsNumeric() {
		return 0, false
	}
	return gguf.ValueNumeric[int64](v), true
}

// stringsOf are the items of a header's array of strings. The parser
// skips large arrays' items (the vocabulary), so a small one it left
// unread is read here from the file: each item a uint64 length and its
// bytes, up to 64 KiB in all (a version 1 file's 32-bit lengths are not
// read: its tags are not looked at).
func stringsOf(path string, av gguf.GGUFMetadataKVArrayValue) []string {
	if len(av.Array) == int(av.Len) {
		return av.ValuesString()
	}
	if av.Size <= 0 || av.Size > 64<<10 {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	// StartOffset is where the array starts: its item type (uint32)
	// and length (uint64), then the items.
	const head = 4 + 8
	b := make([]byte, head+av.Size)
	n, err := f.ReadAt(b, av.StartOffset)
	if err != nil && err != io.EOF || n < head {
		return nil
	}
	b = b[head:n]
	var out []string
	for i := uint64(0); i < av.Len && len(b) >= 8; i++ {
		n := binary.LittleEndian.Uint64(b)
		if n > uint64(len(b)-8) {
			break
		}
		out = append(out, string(b[8:8+n]))
		b = b[8+n:]
	}
	return out
}
