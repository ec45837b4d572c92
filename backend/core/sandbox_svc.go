package core

import (
	"context"

	"rehome/sandbox"
)

// ImageStatus says whether the sandbox image this rehome expects is
// there, its archive in the cache, and what to do when it is not.
type ImageStatus = sandbox.ImageStatus

// Sandbox is the sandbox's own work, the same for every face: its status,
// the self-test, the image (status, build, save, ensure) and the
// housekeeping of what earlier runs left. Each call starts the Core's
// engine on first use (Core.Engine); loading an archive is
// Core.LoadImage.
type Sandbox struct{ c *Core }

// Sandbox is the sandbox service.
func (c *Core) Sandbox() *Sandbox { return &Sandbox{c: c} }

// Status says whether runs can start: Podman found or not (and how to
// install it), the image, what the host enforces, the runtime.
func (s *Sandbox) Status(ctx context.Context) SandboxStatus {
	e, err := s.c.Engine(ctx)
	return StatusOf(ctx, e, err)
}

// Doctor runs the self-test — each guarantee attacked, reported as held,
// weaker or not held — telling progress each check's name, and keeps its
// outcome for the readiness checklist unless ctx ended it. Without Podman
// the report says so (NoPodmanReport).
func (s *Sandbox) Doctor(ctx context.Context, progress func(check string)) DoctorReport {
	e, err := s.c.Engine(ctx)
	if err != nil {
		return NoPodmanReport(err)
	}
	rep := e.Doctor(ctx, progress)
	if !rep.Interrupted {
		if err := s.c.KeepSelfTest(rep.OK, rep.Summary); err != nil {
			s.c.log.Warn("keep the self-test's outcome", "err", err)
		}
	}
	return rep
}

// Image is the name of the image this rehome runs sandboxes from.
func (s *Sandbox) Image(ctx context.Context) (string, error) {
	e, err := s.c.Engine(ctx)
	if err != nil {
		return "", err
	}
	return e.Image(), nil
}

// ImageStatus says whether the image is present (or its archive cached),
// and which stale ones are left.
func (s *Sandbox) ImageStatus(ctx context.Context) (ImageStatus, error) {
	e, err := s.c.Engine(ctx)
	if err != nil {
		return ImageStatus{}, err
	}
	return e.ImageStatus(ctx)
}

// BuildImage builds the image from Debian packages (the Debian mirror
// once, and mmdebstrap), each line of its output told to progress.
func (s *Sandbox) BuildImage(ctx context.Context, progress func(line string)) (*BuildReport, error) {
	e, err := s.c.Engine(ctx)
	if err != nil {
		return nil, err
	}
	return e.BuildImage(ctx, progress)
}

// SaveImage writes the image, loaded first from what ships with rehome if
// it is not there yet, as an archive at path (to carry to an air-gapped
// machine).
func (s *Sandbox) SaveImage(ctx context.Context, path string) error {
	e, err := s.c.Engine(ctx)
	if err != nil {
		return err
	}
	if err := e.EnsureImage(ctx, nil); err != nil {
		return err
	}
	return e.SaveImage(ctx, path)
}

// Clean removes the sandboxes earlier runs left (swept, a count) and the
// images and archives of older recipes (removed, by name).
func (s *Sandbox) Clean(ctx context.Context) (swept int, removed []string, err error) {
	e, err := s.c.Engine(ctx)
	if err != nil {
		return 0, nil, err
	}
	swept = e.Sweep(ctx)
	removed, err = e.RemoveStale(ctx)
	return swept, removed, err
}
