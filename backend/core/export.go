package core

import (
	"fmt"
	"io"

	"rehome/backend/assistant"
	"rehome/backend/atomicfile"
	"rehome/backend/progressio"
)

// ExportRequest is one export of a stored assistant, as every face asks it.
type ExportRequest struct {
	ID string
	// Format is "modelfile", "openwebui" or "bundle".
	Format string
	// Options choose the local model and its parameters (modelfile,
	// openwebui). An empty Model takes the one the assistant's latest
	// audit chose.
	Options assistant.ExportOptions
	// AllowMissing goes on when a knowledge file is not where it was
	// attached (bundle; its reference is kept).
	AllowMissing bool
	// Path is the file to write, atomically (it appears complete or not
	// at all). Empty: the text comes back in Export.Content (a bundle
	// needs a path).
	Path string
}

// Export is what an export wrote or made.
type Export struct {
	Format   string   `json:"format"`
	Path     string   `json:"path,omitempty"`
	Bytes    int64    `json:"bytes"`
	Content  string   `json:"content,omitempty"`
	Model    string   `json:"model,omitempty"`
	Warnings []string `json:"warnings"`
}

// UnnamedModelError is an export whose model was left to the audit, where
// the audit chose a model with no Ollama name: the caller names one.
type UnnamedModelError struct{ Model string }

// Error names the model the audit chose.
func (e *UnnamedModelError) Error() string {
	return fmt.Sprintf("its latest audit picked %s, which has no Ollama name rehome knows", e.Model)
}

// Export exports a stored assistant: a Modelfile or Open WebUI JSON (for
// the local model named in req, else its latest audit's), or a bundle
// with its knowledge files (streamed: they can be large). The window's
// export and `rehome assistants export` both come here, so both write the
// same way.
func (c *Core) Export(req ExportRequest) (Export, error) {
	if err := c.Ready(); err != nil {
		return Export{}, err
	}
	a, err := c.assistants.Get(req.ID)
	if err != nil {
		return Export{}, err
	}
	out := Export{Format: req.Format, Path: req.Path, Warnings: []string{}}
	var data []byte
	switch req.Format {
	case "modelfile", "openwebui":
		opts := req.Options
		if opts.Model == "" {
			if rec, aa, err := c.audits.Latest(a.ID); err == nil && rec.ModelFor(aa) != nil {
				m := rec.ModelFor(aa)
				if m.Tag == "" && m.Name != "" {
					return Export{}, &UnnamedModelError{Model: m.Name}
				}
				opts.Model = m.Tag
			}
		}
		out.Model = opts.Model
		if req.Format == "modelfile" {
			var text string
			text, out.Warnings, err = assistant.Modelfile(a, opts)
			data = []byte(text)
		} else {
			data, out.Warnings, err = assistant.OpenWebUI(a, opts)
		}
		if err != nil {
			return Export{}, err
		}
		if req.Path == "" {
			out.Content, out.Bytes = string(data), int64(len(data))
			return out, nil
		}
		err = writeAtomic(req.Path, func(w io.Writer) error { _, err := w.Write(data); return err })
		out.Bytes = int64(len(data))
	case "bundle":
		if req.Path == "" {
			return Export{}, fmt.Errorf("a bundle is an archive: it needs a file to be written to")
		}
		err = writeAtomic(req.Path, func(w io.Writer) error {
			cw := &progressio.Counter{W: w}
			var werr error
			out.Warnings, werr = assistant.WriteBundle(cw, assistant.BundleKindFor(req.Path), a, assistant.BundleOptions{AllowMissing: req.AllowMissing, Library: c.assistants.Library()})
			out.Bytes = cw.N
			return werr
		})
	default:
		return Export{}, fmt.Errorf("unknown export format %q: use modelfile, openwebui or bundle", req.Format)
	}
	if err != nil {
		return Export{}, err
	}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	return out, nil
}

// writeAtomic writes what fill writes to path so that the file appears
// complete or not at all, synced with its folder (package atomicfile).
func writeAtomic(path string, fill func(w io.Writer) error) error {
	if err := atomicfile.Write(path, 0o644, fill); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
