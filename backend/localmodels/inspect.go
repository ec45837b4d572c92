package localmodels

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rehome/backend/bytesize"
	"rehome/backend/models"
)

// ggufMagic opens every GGUF file.
var ggufMagic = []byte("GGUF")

// Inspect checks that path is a whole GGUF model file and describes it
// from its header. The weights are not read; hashing is Hash's.
func Inspect(path string) (Model, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Model{}, err
	}
	f, err := os.Open(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return Model{}, fmt.Errorf("no file %s: give the path of the .gguf file you carried", path)
		}
		return Model{}, fmt.Errorf("cannot read %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Model{}, err
	}
	if !st.Mode().IsRegular() {
		return Model{}, fmt.Errorf("%s is not a file: give the .gguf model file itself", path)
	}
	head := make([]byte, 4)
	n, err := io.ReadFull(f, head)
	if head = head[:n]; err != nil || !bytes.Equal(head, ggufMagic) {
		return Model{}, fmt.Errorf("%w: %s does not start as a GGUF file does (%s); llama.cpp models end in .gguf, and a safetensors or .bin checkpoint must be converted first", ErrNotGGUF, path, describeStart(head))
	}
	gf, err := models.ParseGGUF(abs)
	if err != nil {
		return Model{}, fmt.Errorf("%w: the GGUF header of %s does not parse (%v): the file is damaged or cut short; copy it again", ErrNotGGUF, path, err)
	}
	// A file cut short in its weights has a whole header: its tensors
	// must end inside the file.
	var end int64
	for _, ti := range gf.TensorInfos {
		end = max(end, gf.TensorDataStartOffset+int64(ti.Offset)+int64(ti.Bytes()))
	}
	if end > st.Size() {
		return Model{}, fmt.Errorf("%w: %s is cut short: its header promises %s of weights, the file holds %s; copy it again (compare its SHA-256 with the source's)", ErrNotGGUF, path, bytesize.Format(end), bytesize.Format(st.Size()))
	}
	spec, layout, err := models.FromGGUF(abs)
	if err != nil {
		return Model{}, fmt.Errorf("%w: %v", ErrNotGGUF, err)
	}
	embedding, by, pooling := embeddingOf(abs, gf)
	if !embedding {
		pooling = ""
	}
	name := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	return Model{
		Schema:        Schema,
		Name:          name,
		Path:          abs,
		Source:        abs,
		Size:          st.Size(),
		Arch:          spec.Arch,
		Layers:        spec.Layers,
		ContextLength: spec.MaxContext,
		Quant:         layout.Quant,
		Params:        spec.ParamsTotal,
		Embedding:     embedding,
		EmbeddingBy:   by,
		Pooling:       pooling,
	}, nil
}

// describeStart names what a file that is not GGUF starts with.
func describeStart(b []byte) string {
	switch {
	case len(b) == 0:
		return "it is empty"
	case bytes.HasPrefix(b, []byte("PK")):
		return "it is a zip archive"
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		return "it is gzip-compressed: unpack it first"
	case bytes.HasPrefix(b, []byte("{")):
		return "it is JSON text"
	}
	return fmt.Sprintf("it starts with %q", b)
}

// Hash returns the file's SHA-256 in hex.
func Hash(path string) (string, error) {
	return hashCtx(context.Background(), path, 0, func(int64, int64) {})
}
