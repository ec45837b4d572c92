package cli

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
// needs: the readiness checklist the window's first run shows
// (core.Readiness). Each is a warning at worst: the rest of rehome works
// without the sandbox; a step not yet taken says how to take it.
func sandboxFindings(env *cliEnv) []finding {
	ctx, cancel := context.WithTimeout(env.context(), 30*time.Second)
	defer cancel()
	var out []finding
	for _, c := range env.sandboxCore().Readiness(ctx) {
		status, detail := c.State, c.Detail
		switch c.State {
		case "fail":
			status = "warn"
		case "todo":
			status, detail = "warn", "not done yet: "+detail
		}
		if c.State != "ok" && c.Command != "" {
			detail += " (" + c.Command + ")"
		}
		out = append(out, finding{c.ID, status, detail})
	}
	return out
}
