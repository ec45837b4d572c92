package sandboxexec

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"rehome/backend/llm"
	"rehome/sandbox"
)

// OneShot runs each cell in a fresh sandbox.
type OneShot struct {
	Engine *sandbox.Engine
	// InputPath is the file shown read-only at /mnt/data/<name> ("" none).
	// One-shot runs show one file; sessions show them all.
	InputPath string
	Limits    sandbox.Limits
	// OutputDir is the folder under which each cell's outputs are saved,
	// in a subfolder named by the run's id.
	OutputDir string
	// InlinePlots fills OutFile.DataURL for plots (the window shows them
	// without reading the disk).
	InlinePlots bool
	// Progress sees the run's steps (may be nil).
	Progress func(sandbox.Progress)
	// Done is called with each finished run (to keep its record; may be nil).
	Done func(req sandbox.RunRequest, res *sandbox.Result)
}

// Exec runs code once. An error means the cell could not run at all (no
// Podman, no image); what the code did — fail, hang, exhaust memory — is
// the result.
func (o *OneShot) Exec(ctx context.Context, code string) (llm.CellResult, error) {
	if o.Engine == nil {
		return llm.CellResult{}, errors.New("no sandbox: install Podman and run `rehome sandbox doctor`")
	}
	// Probe the runtime under a context that outlives this cell: the probe
	// may start a private Podman service whose connection lives as long as
	// the context it was opened with, and the engine keeps it for every
	// later cell (and every later question of the window).
	if _, err := o.Engine.Runtime(context.WithoutCancel(ctx)); err != nil {
		return llm.CellResult{}, fmt.Errorf("the sandbox could not run the code: %w", err)
	}
	id := sandbox.NewRunID()
	req := sandbox.RunRequest{ID: id, Code: code, InputPath: o.InputPath, Limits: o.Limits.WithDefaults(),
		OutputDir: filepath.Join(o.OutputDir, id), InlinePlots: o.InlinePlots}
	progress := o.Progress
	if progress == nil {
		progress = func(sandbox.Progress) {}
	}
	res, err := o.Engine.Run(ctx, req, progress)
	if err != nil {
		return llm.CellResult{}, fmt.Errorf("the sandbox could not run the code: %w", err)
	}
	if o.Done != nil {
		o.Done(req, res)
	}
	return FromResult(res), nil
}

// FromResult turns a sandbox result into a cell result.
func FromResult(res *sandbox.Result) llm.CellResult {
	c := llm.CellResult{RunID: res.ID, ExitCode: res.ExitCode, TimedOut: res.TimedOut, OOMKilled: res.OOMKilled,
		Stdout: res.Stdout, Stderr: res.Stderr, Summary: res.Summary, Notes: res.Notes, DurationMS: res.DurationMS,
		Files: []llm.OutFile{}}
	if res.StdoutTruncated {
		c.Notes = append(c.Notes, "stdout was cut at the sandbox's output limit")
	}
	for _, f := range res.Files {
		c.Files = append(c.Files, llm.OutFile{Name: f.Name, Kind: f.Kind, Size: f.Size, Path: f.Path, DataURL: f.DataURL})
	}
	return c
}
