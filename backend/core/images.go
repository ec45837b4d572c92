package core

import (
	"context"

	"rehome/sandbox"
)

// ImageLoad is one step of loading the sandbox image, in words.
type ImageLoad struct {
	Stage   string `json:"stage"` // "verify" (the SHA-256) or "load"
	Message string `json:"message"`
	Done    int64  `json:"done"`  // bytes read so far
	Total   int64  `json:"total"` // of the archive
}

// LoadImage loads an image archive into Podman (checking its SHA-256
// where one is recorded beside it) with each step to progress (may be
// nil), and returns the names it held.
func (c *Core) LoadImage(ctx context.Context, archive string, progress func(ImageLoad)) ([]string, error) {
	e, err := c.Engine(ctx)
	if err != nil {
		return nil, err
	}
	names, err := e.LoadImage(withImageProgress(ctx, e, progress), archive)
	if err == nil {
		c.log.Info("image loaded", "archive", archive, "names", names)
	}
	return names, err
}

// LoadShippedImage loads the image shipped by the rehome-sandbox-image
// package when it is not in Podman's storage yet (the first run), with
// progress; loaded is false when there was nothing to do.
func (c *Core) LoadShippedImage(ctx context.Context, progress func(ImageLoad)) (loaded bool, err error) {
	if sandbox.PackagedImageArchive() == "" {
		return false, nil
	}
	e, err := c.Engine(ctx)
	if err != nil {
		return false, err
	}
	return e.LoadPackagedImage(withImageProgress(ctx, e, progress))
}

func withImageProgress(ctx context.Context, e *sandbox.Engine, progress func(ImageLoad)) context.Context {
	if progress == nil {
		return ctx
	}
	return sandbox.WithLoadProgress(ctx, func(stage string, done, total int64) {
		msg := "loading the sandbox image into Podman"
		switch {
		case e.Host().FilesTravel && stage == "load" && done < total:
			// A team host: the archive travels over the connection (the
			// faces add Done of Total).
			msg = "loading the sandbox image onto " + e.ServiceName()
		case stage == "verify":
			msg = "checking the image archive's SHA-256"
		case total > 0 && done >= total:
			msg = "Podman is unpacking the sandbox image"
		}
		progress(ImageLoad{Stage: stage, Message: msg, Done: done, Total: total})
	})
}
