package localmodels

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	gguf "github.com/gpustack/gguf-parser-go"

	"rehome/backend/bytesize"
)

// A vision model in GGUF comes as two files: the language model and its
// image projector (llama.cpp's "mmproj" file, a GGUF of architecture
// "clip"), which llama-server loads with --mmproj. The projector is added
// with the model (`rehome models add MODEL.gguf --mmproj MMPROJ.gguf`) or
// found beside it: the one .gguf in the model's folder whose name holds
// "mmproj".

// inspectProjector checks that path is a whole image projector and returns
// its absolute path and size.
func inspectProjector(path string) (string, int64, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", 0, err
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", 0, fmt.Errorf("cannot read the projector %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", 0, err
	}
	if !st.Mode().IsRegular() {
		return "", 0, fmt.Errorf("the projector %s is not a file", path)
	}
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	if !bytes.Equal(head[:n], ggufMagic) {
		return "", 0, fmt.Errorf("%w: the projector %s does not start as a GGUF file does (%s)", ErrNotGGUF, path, describeStart(head[:n]))
	}
	gf, err := gguf.ParseGGUFFile(abs, gguf.SkipLargeMetadata())
	if err != nil {
		return "", 0, fmt.Errorf("%w: the GGUF header of the projector %s does not parse (%v): copy it again", ErrNotGGUF, path, err)
	}
	arch := ""
	if kv, ok := gf.Header.MetadataKV.Get("general.architecture"); ok {
		arch = kv.ValueString()
	}
	if arch != "clip" {
		return "", 0, fmt.Errorf("%w: %s is a %q model, not an image projector (llama.cpp's projectors are \"clip\" GGUFs, named mmproj-….gguf)", ErrNotGGUF, path, arch)
	}
	var end int64
	for _, ti := range gf.TensorInfos {
		end = max(end, gf.TensorDataStartOffset+int64(ti.Offset)+int64(ti.Bytes()))
	}
	if end > st.Size() {
		return "", 0, fmt.Errorf("%w: the projector %s is cut short (%s of %s): copy it again", ErrNotGGUF, path, bytesize.Format(st.Size()), bytesize.Format(end))
	}
	return abs, st.Size(), nil
}

// besideProjector is the image projector in the model's folder: the one
// .gguf file whose name holds "mmproj" ("" when none, or more than one).
func besideProjector(modelPath string) string {
	entries, err := os.ReadDir(filepath.Dir(modelPath))
	if err != nil {
		return ""
	}
	found := ""
	for _, e := range entries {
		n := strings.ToLower(e.Name())
		if e.Type().IsRegular() && strings.HasSuffix(n, ".gguf") && strings.Contains(n, "mmproj") && filepath.Join(filepath.Dir(modelPath), e.Name()) != modelPath {
			if found != "" {
				return "" // which one is the model's is not clear: --mmproj names it
			}
			found = filepath.Join(filepath.Dir(modelPath), e.Name())
		}
	}
	return found
}
