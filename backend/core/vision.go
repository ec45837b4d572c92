package core

import (
	"context"
	"fmt"
	"strings"

	"rehome/backend/llm"
	"rehome/backend/vision"
)

// NoVisionError is a question with images for a model that does not read
// them: nothing is sent; Readers name the models here that do.
type NoVisionError struct {
	Model   string
	Readers []string // "MODEL (SERVER)"
}

// Error says which model to pick instead.
func (e *NoVisionError) Error() string {
	msg := fmt.Sprintf("%s does not read images (so the images were not sent)", e.Model)
	if len(e.Readers) == 0 {
		return msg + ": no model served or carried on this machine does; add one with its projector (`rehome models add MODEL.gguf --mmproj MMPROJ.gguf`) or serve one that does (for example `ollama pull qwen2.5vl:7b` or `gemma3:4b`) and ask it"
	}
	return msg + ": ask a model that does: " + strings.Join(e.Readers, ", ")
}

// questionImages readies the images of a question (see backend/vision):
// each vetted by check (nil: all accepted), read within its bounds,
// before a model is picked; Prepare then sends them only to a model that
// reads images (NoVisionError).
func questionImages(paths []string, check func(string) (string, error)) (urls, names []string, err error) {
	if len(paths) == 0 {
		return nil, nil, nil
	}
	if len(paths) > vision.MaxImages {
		return nil, nil, fmt.Errorf("%d images: one question takes at most %d", len(paths), vision.MaxImages)
	}
	for _, p := range paths {
		if check != nil {
			if p, err = check(p); err != nil {
				return nil, nil, err
			}
		}
		im, err := vision.Load(p)
		if err != nil {
			return nil, nil, err
		}
		urls, names = append(urls, im.DataURL), append(names, im.Name)
	}
	return urls, names, nil
}

// imageReaders lists the models served on this machine that read images,
// by each server's own word (Ollama's capabilities, llama-server's /props
// modalities, LM Studio's vlm type) or rehome's catalog, and the carried
// models that fit with their projector (rehome starts them with it).
func imageReaders(ctx context.Context, carried []CarriedModel) []string {
	servers, _ := llm.Discover(ctx, llm.DiscoverOptions{ToolsHint: llm.CatalogToolsHint})
	var out []string
	for _, s := range servers {
		for _, m := range s.Models {
			if m.Vision {
				out = append(out, fmt.Sprintf("%s (%s, %s)", m.ID, s.Name, s.BaseURL))
			}
		}
	}
	// The carried models with a projector, which rehome starts with it.
	for _, m := range carried {
		if m.MMProj != "" && m.FitError == "" {
			out = append(out, fmt.Sprintf("%s (carried: rehome ask --model %s)", m.Name, m.Name))
		}
	}
	return out
}
