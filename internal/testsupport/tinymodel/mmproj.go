package tinymodel

import (
	"fmt"
	"os"
	"path/filepath"
)

// A tiny vision projector (mmproj) in llama.cpp's clip GGUF format
// (tools/mtmd/clip.cpp): a LLaVA-style "mlp" projector over a one-block
// vision encoder, 28×28 pixel images cut into four 14×14 patches. The
// encoder runs no block (a LLaVA projector takes the second-to-last
// block's output: with one block, the patch embeddings themselves), and
// the projector's last matrix is zero, so every image patch comes out as
// its bias: the embedding of a filler token (the constant and dimFill),
// which no detector head looks for. A model given an image then says
// what it says without one — what a test of the image's way through
// rehome and the real llama-server wants: the server loads the
// projector, reports the vision modality in /props, and takes OpenAI
// image_url parts.
const (
	projEmbd   = 8  // the vision encoder's width
	projFF     = 8  // its feed-forward width
	projHidden = 16 // the projector's hidden width
	projImage  = 28 // image side, in pixels
	projPatch  = 14 // patch side
)

// WriteProjector writes the tiny projector for the tiny model (whose
// embedding width it matches) to path.
func WriteProjector(path string) error {
	nPos := (projImage / projPatch) * (projImage / projPatch)
	zeros := func(n int) []float32 { return make([]float32, n) }
	ones := func(n int) []float32 {
		o := make([]float32, n)
		for i := range o {
			o[i] = 1
		}
		return o
	}
	f32 := func(name string, data []float32, shape ...uint64) *tensor {
		return &tensor{Name: name, Shape: shape, Type: ggmlF32, Data: data}
	}
	f16t := func(name string, data []float32, shape ...uint64) *tensor {
		return &tensor{Name: name, Shape: shape, Type: ggmlF16, Data: data}
	}
	out := zeros(nEmbd)
	out[dimFill], out[dimBias] = 1, 1
	tensors := []*tensor{
		f16t("v.patch_embd.weight", zeros(projPatch*projPatch*3*projEmbd), projPatch, projPatch, 3, projEmbd),
		f32("v.position_embd.weight", zeros(projEmbd*nPos), projEmbd, uint64(nPos)),
		f32("v.blk.0.ln1.weight", ones(projEmbd), projEmbd),
		f32("v.blk.0.ln1.bias", zeros(projEmbd), projEmbd),
		f16t("v.blk.0.attn_q.weight", zeros(projEmbd*projEmbd), projEmbd, projEmbd),
		f16t("v.blk.0.attn_k.weight", zeros(projEmbd*projEmbd), projEmbd, projEmbd),
		f16t("v.blk.0.attn_v.weight", zeros(projEmbd*projEmbd), projEmbd, projEmbd),
		f16t("v.blk.0.attn_out.weight", zeros(projEmbd*projEmbd), projEmbd, projEmbd),
		f32("v.blk.0.ln2.weight", ones(projEmbd), projEmbd),
		f32("v.blk.0.ln2.bias", zeros(projEmbd), projEmbd),
		f16t("v.blk.0.ffn_up.weight", zeros(projEmbd*projFF), projEmbd, projFF),
		f16t("v.blk.0.ffn_down.weight", zeros(projFF*projEmbd), projFF, projEmbd),
		f16t("mm.0.weight", zeros(projEmbd*projHidden), projEmbd, projHidden),
		f32("mm.0.bias", zeros(projHidden), projHidden),
		f16t("mm.2.weight", zeros(projHidden*nEmbd), projHidden, nEmbd),
		f32("mm.2.bias", out, nEmbd),
	}
	half := array{Type: ggufFloat32, Items: []any{float32(0.5), float32(0.5), float32(0.5)}}
	meta := []kv{
		{"general.architecture", ggufString, "clip"},
		{"general.name", ggufString, "rehome tiny projector"},
		{"general.description", ggufString, "weights set by hand by rehome's tests (internal/testsupport/tinymodel): every image patch is a filler token"},
		{"general.file_type", ggufUint32, uint32(1)},
		{"clip.has_vision_encoder", ggufBool, true},
		{"clip.projector_type", ggufString, "mlp"},
		{"clip.vision.image_size", ggufUint32, uint32(projImage)},
		{"clip.vision.patch_size", ggufUint32, uint32(projPatch)},
		{"clip.vision.embedding_length", ggufUint32, uint32(projEmbd)},
		{"clip.vision.feed_forward_length", ggufUint32, uint32(projFF)},
		{"clip.vision.projection_dim", ggufUint32, uint32(nEmbd)},
		{"clip.vision.attention.head_count", ggufUint32, uint32(1)},
		{"clip.vision.attention.layer_norm_epsilon", ggufFloat32, float32(1e-6)},
		{"clip.vision.block_count", ggufUint32, uint32(1)},
		{"clip.vision.image_mean", ggufArray, half},
		{"clip.vision.image_std", ggufArray, half},
		{"clip.use_gelu", ggufBool, true},
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tinymmproj-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := writeGGUF(tmp, meta, tensors); err != nil {
		tmp.Close()
		return fmt.Errorf("write the projector: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
