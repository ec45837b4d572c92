package main

import (
	"context"
	"fmt"
	"time"

	"rehome/sandbox"
)

// loadPackagedImage loads the image shipped by the rehome-sandbox-image
// package on the first run of a command that needs it, checking its
// SHA-256, with progress on stderr (quiet under --json).
func loadPackagedImage(ctx context.Context, env *cliEnv, e *sandbox.Engine, quiet bool) error {
	if sandbox.PackagedImageArchive() == "" {
		return nil
	}
	t0 := time.Now()
	last := map[string]int64{}
	ctx = sandbox.WithLoadProgress(ctx, func(stage string, done, total int64) {
		if quiet || total <= 0 {
			return
		}
		pct := done * 100 / total
		if pct/10 == last[stage]/10 && pct != 100 {
			return
		}
		if _, seen := last[stage]; !seen || pct != last[stage] {
			what := "loading the sandbox image"
			if stage == "verify" {
				what = "checking the sandbox image's SHA-256"
			}
			fmt.Fprintf(env.stderr, "rehome: %s: %d%% of %.0f MiB\n", what, pct, float64(total)/(1<<20))
		}
		last[stage] = pct
	})
	loaded, err := e.LoadPackagedImage(ctx)
	if err != nil {
		return err
	}
	if loaded && !quiet {
		fmt.Fprintf(env.stderr, "rehome: sandbox image loaded from %s in %.1f s (first run only)\n", sandbox.PackagedImageArchive(), time.Since(t0).Seconds())
	}
	return nil
}

// sandboxFindings are `rehome doctor`'s lines on the Code Interpreter's
// needs: Podman, rootless readiness, the storage driver (vfs copies the
// whole image for each run) and the image. Each is a warning at worst:
// the rest of rehome works without the sandbox.
func sandboxFindings(env *cliEnv) []finding {
	var out []finding
	add := func(check, status, format string, a ...any) {
		out = append(out, finding{check, status, fmt.Sprintf(format, a...)})
	}
	rc := sandbox.CheckRootless()
	switch {
	case rc.Root:
	case !rc.SubUIDs || !rc.SubGIDs || !rc.NewUIDMap:
		add("rootless", "warn", "%s lacks subordinate ids or newuidmap, so rootless Podman cannot start sandboxes: %s", rc.User, rc.FixIDs)
	case !rc.Socket:
		add("rootless", "warn", "your Podman socket is not enabled: each rehome session starts a private service (%s)", rc.FixSocket)
	default:
		add("rootless", "ok", "subordinate ids set; Podman socket at %s", rc.SocketPath)
	}
	ctx, cancel := context.WithTimeout(env.context(), 30*time.Second)
	defer cancel()
	e, err := env.sandboxCore().Engine(ctx)
	if err != nil {
		add("podman", "warn", "%v", err)
		return out
	}
	h := e.Host()
	add("podman", "ok", "Podman %s at %s", h.PodmanVersion, h.ServiceURI)
	if sf, err := e.StorageFinding(ctx); err != nil {
		add("storage", "warn", "%v", err)
	} else {
		add("storage", sf.State, "%s", sf.Detail)
	}
	// The same words as `rehome sandbox image status` (ImageStatus.State).
	img, err := e.ImageStatus(ctx)
	switch {
	case err != nil:
		add("image", "warn", "%v", err)
	case img.Ready():
		add("image", "ok", "%s: %s", img.Image, img.Summary())
	default:
		add("image", "warn", "%s: %s: %s", img.Image, img.Summary(), img.Fix)
	}
	return out
}
