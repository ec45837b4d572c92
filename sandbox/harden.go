package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/containers/podman/v4/pkg/bindings/containers"

	"rehome/backend/bytesize"
)

// One builder for the hardening of every container rehome starts: one-shot
// runs, sessions and the runtime probe get their job from newJob (user
// namespace, cgroup ceilings, rlimits) and their inputs from
// stageInputs, and buildSpec turns the job into the spec. A guarantee
// therefore cannot hold on one path and not on another; spec_test.go
// compares a session's spec with a one-shot run's field by field.

// newJob returns the hardened job of a container of kind ("run",
// "session", "probe") named for id, and the function that gives back its
// host ids. long says the container may outlive this process (a session):
// its host ids then also avoid those of the sandboxes running now.
func (e *Engine) newJob(ctx context.Context, kind, id string, long bool) (job, func(), error) {
	j := job{
		image:     e.image,
		name:      "rehome-" + kind + "-" + strings.ToLower(id),
		labels:    map[string]string{labelSandbox: "1", labelOwner: e.owner},
		cgroups:   e.Enforcement(),
		nprocHard: nprocHard(),
	}
	release := func() {}
	if !e.Host().Rootless && !e.noUserNS {
		var taken []uint32
		if long {
			taken = e.runningIDBases(ctx)
		}
		j.idBase = e.takeIDBase(taken...)
		j.labels[labelIDBase] = formatID(j.idBase)
		release = func() { e.releaseIDBase(j.idBase) }
	}
	return j, release, nil
}

// runningIDBases lists the host id ranges of the sandboxes that exist now
// (any process's): a session holds its range for hours.
func (e *Engine) runningIDBases(ctx context.Context) []uint32 {
	list, err := containers.List(e.api(ctx), new(containers.ListOptions).WithAll(true).
		WithFilters(map[string][]string{"label": {labelIDBase}}))
	if err != nil {
		return nil
	}
	var out []uint32
	for _, c := range list {
		if v, err := strconv.ParseUint(c.Labels[labelIDBase], 10, 32); err == nil {
			out = append(out, uint32(v))
		}
	}
	return out
}

// staged is one input as its container mounts it.
type staged struct {
	in *input
	// src is what is mounted: in itself, or rehome's private copy of it.
	src *input
	// source is the host path Podman mounts.
	source string
	owned  bool
	// sent: it travels over the connection (send.go), not mounted.
	sent bool
}

// stageInputs puts each input in a private folder (stage.go) the way every
// container gets its inputs: a private copy under a neutral name when
// others may not read the file or it is small (the code's mount table then
// names no folder of the host's), else a hard link to it where the folder
// is on the file's own file system (the same effect without a copy), else
// a symbolic link (so that any host name travels as a plain path; the
// mount table then shows the file's path). The caller removes the stage
// once the container runs or is gone; done closes the copies.
func (e *Engine) stageInputs(ins []*input) (st *stage, out []staged, notes []string, done func(), err error) {
	if len(ins) == 0 {
		return nil, nil, nil, func() {}, nil
	}
	if e.Host().FilesTravel {
		// The service cannot see this machine's paths: nothing to stage.
		out, err := e.sendable(ins)
		return nil, out, nil, func() {}, err
	}
	copyIt := func(in *input) bool { return !in.othersCanRead() || in.size <= stageCopyMax }
	need := int64(0)
	roots := e.stageRoots()
	linked := false
	for _, in := range ins {
		if copyIt(in) {
			need += in.size
		} else if !linked {
			roots, linked = sameDeviceFirst(roots, in.dev), true
		}
	}
	if st, err = newStage(roots, need); err != nil {
		return nil, nil, nil, nil, err
	}
	var opened []*input
	done = func() {
		for _, cp := range opened {
			cp.close()
		}
	}
	fail := func(err error) (*stage, []staged, []string, func(), error) {
		done()
		st.remove()
		return nil, nil, nil, nil, err
	}
	for i, in := range ins {
		dir := st.dir
		if i > 0 {
			dir = filepath.Join(st.dir, strconv.Itoa(i))
			if err := os.Mkdir(dir, 0o700); err != nil {
				return fail(fmt.Errorf("prepare the input file: %w", err))
			}
		}
		s := staged{in: in, src: in, source: filepath.Join(dir, "input")}
		switch {
		case copyIt(in):
			cp, err := in.privateCopy(dir)
			if err != nil {
				return fail(err)
			}
			opened = append(opened, cp)
			s.src, s.owned = cp, true
			if !in.othersCanRead() {
				notes = append(notes, fmt.Sprintf("%s is readable only by its owner (mode %04o), so the sandbox's unprivileged user got a private read-only copy of it (%s), removed after the run", filepath.Base(in.hostPath), in.mode.Perm(), bytesize.Format(in.size)))
			}
		case hardLink(in.f, s.source, in.dev, in.ino):
		default:
			if err := os.Symlink(in.hostPath, s.source); err != nil {
				return fail(fmt.Errorf("prepare the input file: %w", err))
			}
		}
		out = append(out, s)
	}
	return st, out, notes, done, nil
}

// setInputs mounts the staged inputs: the first at j's input, the others
// beside it.
func (j *job) setInputs(ins []staged) {
	for i, s := range ins {
		if s.sent {
			j.sent = append(j.sent, s.src)
			if i == 0 {
				j.inputName, j.inputSize = s.src.name, s.src.size
			} else {
				j.more = append(j.more, moreInput{name: s.src.name, size: s.src.size})
			}
			continue
		}
		if i == 0 {
			j.inputSource, j.inputName, j.inputDev, j.inputIno, j.inputOwned = s.source, s.src.name, s.src.dev, s.src.ino, s.owned
			continue
		}
		j.more = append(j.more, moreInput{source: s.source, name: s.src.name, dev: s.src.dev, ino: s.src.ino, owned: s.owned})
	}
}
