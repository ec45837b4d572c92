package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/containers/podman/v4/pkg/bindings/containers"
)

// The sessions of a data folder, and which of them run.

// runningSessions lists the session containers of the sessions folder base
// ("": of any folder) that run now, by session id. A container whose
// owner — the process that holds the session, a relay or a window — is
// gone (killed with SIGKILL, crashed) is an orphan: nothing can send it
// a cell any more, so it is removed here rather than counted (the
// background sweep of leftovers may not have reached it yet, and it would
// hold the cap on sessions full). Only a named folder's are reaped.
func (e *Engine) runningSessions(ctx context.Context, base string) (map[string]string, error) {
	labels := []string{labelSession}
	if base != "" {
		labels = append(labels, labelSessions+"="+base)
	}
	list, err := containers.List(e.api(ctx), new(containers.ListOptions).WithAll(true).
		WithFilters(map[string][]string{"label": labels}))
	if err != nil {
		return nil, fmt.Errorf("list the sessions: %w", explain(err))
	}
	out := map[string]string{}
	for _, c := range list {
		if base != "" && !ownerAlive(c.Labels[labelOwner]) {
			if err := removeContainer(e.api(ctx), c.ID); err == nil {
				e.trace("reaped the orphan session " + c.Labels[labelSession])
				continue
			}
		}
		if c.State == "running" || c.State == "created" {
			out[c.Labels[labelSession]] = c.ID
		}
	}
	return out, nil
}

// ListSessions returns the sessions recorded under base (the data
// directory's sessions folder), newest first, with whether each runs.
func (e *Engine) ListSessions(ctx context.Context, base string) ([]SessionInfo, error) {
	abs, err := filepath.Abs(base)
	if err != nil {
		return nil, err
	}
	running, err := e.runningSessions(ctx, abs)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(base)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var out []SessionInfo
	for _, ent := range entries {
		var info SessionInfo
		if readJSON(filepath.Join(base, ent.Name(), "session.json"), &info) != nil {
			continue
		}
		_, info.Running = running[info.ID]
		info.Cells = countCells(filepath.Join(base, ent.Name()))
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, nil
}
