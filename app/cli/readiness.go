package cli

import (
	"context"
	"fmt"
	"time"

	"rehome/backend/core"
)

// loadPackagedImage loads the image shipped by the rehome-sandbox-image
// package on the first run of a command that needs it, checking its
// SHA-256, with progress on stderr (quiet under --json).
func loadPackagedImage(ctx context.Context, env *cliEnv, c *core.Core, quiet bool) error {
	t0 := time.Now()
	var show func(core.ImageLoad)
	if !quiet {
		show = imageProgress(env)
	}
	loaded, err := c.LoadShippedImage(ctx, show)
	if err != nil {
		return err
	}
	if loaded && !quiet {
		fmt.Fprintf(env.stderr, "rehome: sandbox image loaded from %s in %.1f s (first run only)\n", core.PackagedImageArchive(), time.Since(t0).Seconds())
	}
	return nil
}

// imageProgress prints an image load's steps on stderr, every ten per cent.
func imageProgress(env *cliEnv) func(core.ImageLoad) {
	last := map[string]int64{}
	return func(p core.ImageLoad) {
		if p.Total <= 0 {
			return
		}
		pct := p.Done * 100 / p.Total
		if pct/10 == last[p.Stage]/10 && pct != 100 {
			return
		}
		if _, seen := last[p.Stage]; !seen || pct != last[p.Stage] {
			fmt.Fprintf(env.stderr, "rehome: %s: %d%% of %.0f MiB\n", p.Message, pct, float64(p.Total)/(1<<20))
		}
		last[p.Stage] = pct
	}
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
