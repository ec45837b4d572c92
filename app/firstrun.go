package app

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"rehome/backend/core"
)

// The first-run checklist (core.Readiness: what the Code Interpreter needs
// on this machine, each item with its state, the command that fixes it,
// and a Fix the window can run itself where no root is needed). The
// window shows it on first start and from Settings. Progress goes out as "firstrun:progress"
// (FirstRunProgress); "firstrun:changed" says to ask again.

// FirstRunItem is one line of the checklist (core.Check); State may also
// be "working": a fix or load in progress.
type FirstRunItem core.Check

// FirstRun is the checklist.
type FirstRun struct {
	Items []FirstRunItem `json:"items"`
	// Complete: nothing is "fail", "todo" or "working".
	Complete bool `json:"complete"`
	// Show: open it at start — something needs the user (an item failed)
	// or is under way (the first image load), and it was not put off.
	Show bool `json:"show"`
}

// FirstRunProgress is the payload of "firstrun:progress".
type FirstRunProgress struct {
	ID      string `json:"id"`
	Message string `json:"message"`
	Done    int64  `json:"done,omitempty"`
	Total   int64  `json:"total,omitempty"`
}

// fixJobs are the checklist's fixes an App runs: those in progress, one
// per item, and the last error of each.
type fixJobs struct {
	mu      sync.Mutex
	running map[string]string // item -> message
	errs    map[string]string // item -> its last fix's error
}

func (a *App) firstRunBusy(id string) (string, bool) {
	j := &a.fixes
	j.mu.Lock()
	defer j.mu.Unlock()
	msg, ok := j.running[id]
	return msg, ok
}

// startJob runs fn in the background as the fix of item id, once at a
// time, and announces the change when it ends.
func (a *App) startJob(id, msg string, fn func() error) bool {
	j := &a.fixes
	j.mu.Lock()
	if j.running == nil {
		j.running = map[string]string{}
	}
	if _, busy := j.running[id]; busy {
		j.mu.Unlock()
		return false
	}
	j.running[id] = msg
	j.mu.Unlock()
	a.emit("firstrun:progress", FirstRunProgress{ID: id, Message: msg})
	go func() {
		// Outside the call door (Calls): a panic here would end the window.
		err := func() (err error) {
			defer a.guard("the checklist's "+id+" fix", &err)
			return fn()
		}()
		j.mu.Lock()
		delete(j.running, id)
		j.mu.Unlock()
		if err != nil {
			a.log.Warn("first run: fix failed", "item", id, "err", err)
			a.emit("firstrun:progress", FirstRunProgress{ID: id, Message: err.Error()})
		}
		a.setFirstRunError(id, err)
		a.emit("firstrun:changed", id)
	}()
	return true
}

func (a *App) setFirstRunError(id string, err error) {
	j := &a.fixes
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.errs == nil {
		j.errs = map[string]string{}
	}
	if err == nil {
		delete(j.errs, id)
	} else {
		j.errs[id] = err.Error()
	}
}

func (a *App) firstRunError(id string) string {
	j := &a.fixes
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.errs[id]
}

// StartFirstRun is called once the window or `rehome serve` is up: when
// the sandbox image is missing and an archive of it is at hand (shipped
// by the rehome-sandbox-image package, or cached), it loads it in the
// background, checking its SHA-256, with progress — no command needed.
func StartFirstRun(a *App) {
	// Only the packaged archive: a developer's cached one is loaded by the
	// first run that needs it (EnsureImage), without a Podman connection at
	// every start.
	if core.PackagedImageArchive() == "" {
		return // nothing to load: the checklist says how to get the image
	}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				PanicError(a.log, "the first run's image check", r) // logged; the checklist still says what is missing
			}
		}()
		st, err := a.core.Sandbox().ImageStatus(a.ctx)
		if err != nil || st.Present {
			return // no Podman (the checklist says so), or the image is there
		}
		a.startImageLoad()
	}()
}

// startImageLoad loads the shipped or cached archive in the background.
func (a *App) startImageLoad() bool { return a.startFix("image") }

// startFix runs core's fix of checklist item id in the background.
func (a *App) startFix(id string) bool {
	return a.startJob(id, core.FixMessage(id), func() error {
		t0 := time.Now()
		if err := a.core.FixReadiness(a.ctx, id, func(p core.ImageLoad) {
			a.emit("firstrun:progress", FirstRunProgress{ID: id, Message: p.Message, Done: p.Done, Total: p.Total})
		}); err != nil {
			return err
		}
		a.log.Info("first run: fixed", "item", id, "seconds", time.Since(t0).Seconds())
		if id == "image" {
			a.emit("image:progress", "loaded "+filepath.Base(core.FixImageArchive()))
		}
		return nil
	})
}

// FirstRunStatus checks each item of the checklist (core.Readiness, the
// list `rehome doctor` prints), with the fixes in progress.
func (svc *SystemService) FirstRunStatus() (FirstRun, error) {
	a := svc.app
	var fr FirstRun
	for _, c := range a.core.Readiness(a.ctx) {
		it := FirstRunItem(c)
		if msg, busy := a.firstRunBusy(it.ID); busy {
			it.State, it.Detail = "working", msg
		} else if e := a.firstRunError(it.ID); e != "" && it.State != "ok" {
			it.Detail = e + " — " + it.Detail
		}
		fr.Items = append(fr.Items, it)
	}
	return finishFirstRun(a, fr), nil
}

func finishFirstRun(a *App, fr FirstRun) FirstRun {
	fr.Complete = true
	attention := false
	for _, it := range fr.Items {
		if it.State == "fail" || it.State == "todo" || it.State == "working" {
			fr.Complete = false
		}
		attention = attention || it.State == "fail" || it.State == "working"
	}
	fr.Show = attention && !a.core.ReadinessDismissed()
	return fr
}

// FirstRunFix runs the Fix of one item in the background (progress as
// "firstrun:progress", then "firstrun:changed") and returns the checklist.
func (svc *SystemService) FirstRunFix(id string) (FirstRun, error) {
	a := svc.app
	if !slices.Contains(core.FixIDs, id) {
		return FirstRun{}, fmt.Errorf("no fix named %q (podman, rootless, storage, image, selftest)", id)
	}
	a.startFix(id) // false: under way already
	return a.FirstRunStatus()
}

// DismissFirstRun stops the checklist opening at start (Settings still
// shows it).
func (svc *SystemService) DismissFirstRun() error { return svc.app.core.DismissReadiness() }
