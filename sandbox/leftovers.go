package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/containers/podman/v4/pkg/bindings/containers"
)

// Leftovers: removing a container whatever state it is in, and sweeping
// the sandboxes of a rehome process that died mid-run.

// removeContainer kills and removes a container; gone already is fine.
func removeContainer(ctx context.Context, id string) error {
	_, err := containers.Remove(ctx, id, new(containers.RemoveOptions).WithForce(true).WithVolumes(true).WithIgnore(true).WithTimeout(0))
	if err != nil && !isNotFound(err) {
		return err
	}
	return nil
}

// ownerLabel identifies this process for the sweep of leftovers.
func ownerLabel() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%d", host, os.Getpid(), processStart(os.Getpid()))
}

// processStart is a process's start time in clock ticks since boot (field
// 22 of /proc/PID/stat), 0 if unknown: with the pid it names a process
// uniquely across pid reuse.
func processStart(pid int) uint64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}

// ownerAlive reports whether the process named by an owner label runs.
func ownerAlive(label string) bool {
	parts := strings.Split(label, "/")
	if len(parts) != 3 {
		return false
	}
	if host, _ := os.Hostname(); host != parts[0] {
		return true // another machine's (a shared service): not ours to judge
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return false
	}
	start, _ := strconv.ParseUint(parts[2], 10, 64)
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return processStart(pid) == start
}

// Sweep removes sandbox containers whose rehome process is gone (a crash,
// a kill -9), and returns how many it removed.
func (e *Engine) Sweep(ctx context.Context) int {
	api := e.api(ctx)
	list, err := containers.List(api, new(containers.ListOptions).WithAll(true).
		WithFilters(map[string][]string{"label": {labelSandbox + "=1"}}))
	if err != nil {
		return 0
	}
	n := 0
	for _, c := range list {
		if ownerAlive(c.Labels[labelOwner]) {
			continue
		}
		if removeContainer(api, c.ID) == nil {
			n++
		}
	}
	return n
}

// ownContainers are the IDs of the containers this process made that still
// exist, running or not.
func (e *Engine) ownContainers(ctx context.Context) (map[string]bool, error) {
	list, err := containers.List(e.api(ctx), new(containers.ListOptions).WithAll(true).
		WithFilters(map[string][]string{"label": {labelOwner + "=" + e.owner}}))
	ids := map[string]bool{}
	for _, c := range list {
		ids[c.ID] = true
	}
	return ids, err
}

// containerExists says whether the run's container is still there (or
// the service cannot say).
func (e *Engine) containerExists(ctx context.Context, runID string) bool {
	list, err := containers.List(e.api(ctx), new(containers.ListOptions).WithAll(true).
		WithFilters(map[string][]string{"label": {labelRun + "=" + runID}}))
	return err != nil || len(list) > 0
}
