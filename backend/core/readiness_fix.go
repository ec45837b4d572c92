package core

import (
	"context"
	"fmt"
	"path/filepath"
)

// FixIDs are the readiness checklist's items a face can fix itself, no
// root needed: the user's Podman socket, the image from its archive, the
// self-test.
var FixIDs = []string{"rootless", "image", "selftest"}

// FixMessage says what the fix of item id does, in words (its first
// progress line).
func FixMessage(id string) string {
	switch id {
	case "rootless":
		return "enabling your Podman socket"
	case "image":
		return "loading the sandbox image from " + FixImageArchive()
	case "selftest":
		return "running the self-test"
	}
	return ""
}

// FixImageArchive is the archive the image fix loads: the one the
// rehome-sandbox-image package ships, else the one cached by a build.
func FixImageArchive() string {
	if a := PackagedImageArchive(); a != "" {
		return a
	}
	return filepath.Join(CacheDir(), ArchiveName())
}

// FixReadiness runs the fix of checklist item id (one of FixIDs), each
// step told to progress (may be nil): "rootless" enables the user's
// podman.socket and starts the sandbox over it from the next call (the
// sessions on the old connection stop); "image" loads FixImageArchive,
// its SHA-256 checked; "selftest" runs the self-test and keeps its
// outcome (Sandbox.Doctor). The window's checklist and any other face
// fix the same way.
func (c *Core) FixReadiness(ctx context.Context, id string, progress func(ImageLoad)) error {
	if progress == nil {
		progress = func(ImageLoad) {}
	}
	switch id {
	case "rootless":
		if err := EnableSocket(ctx); err != nil {
			return err
		}
		c.CloseSandbox() // use the socket from now on
		return nil
	case "image":
		_, err := c.LoadImage(ctx, FixImageArchive(), progress)
		return err
	case "selftest":
		rep := c.Sandbox().Doctor(ctx, func(check string) { progress(ImageLoad{Message: "checking " + check}) })
		if rep.Interrupted {
			return ctx.Err()
		}
		return nil
	}
	return fmt.Errorf("no fix named %q (podman, rootless, storage, image, selftest)", id)
}

// CloseSandbox stops the sessions this process holds open (a face's and
// the conversations') and the sandbox's engine (and a Podman service
// rehome started that does not linger); the next call starts it again.
func (c *Core) CloseSandbox() {
	c.askSvc.CloseAll()
	c.open.closeAll()
	c.CloseEngine()
}
