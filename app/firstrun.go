package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"rehome/backend/atomicfile"
	"rehome/sandbox"
)

// The first-run checklist: what the Code Interpreter needs on this machine
// — Podman, rootless Podman's ids and socket, a storage driver that does
// not copy the image for every run, the image, a passed self-test — each
// with its state, the exact command that fixes it, and a Fix the window
// can run itself where no root is needed. The window shows it on first
// start and from Settings. Progress goes out as "firstrun:progress"
// (FirstRunProgress); "firstrun:changed" says to ask again.

// FirstRunItem is one line of the checklist.
type FirstRunItem struct {
	ID    string `json:"id"` // podman, rootless, storage, image, selftest
	Title string `json:"title"`
	// State: "ok", "warn" (works, but slower or weaker), "fail", "working"
	// (a fix or load in progress) or "todo" (not checked yet).
	State  string `json:"state"`
	Detail string `json:"detail"`
	// Command fixes it by hand (may need root); Fix names the button that
	// fixes it from the window (FirstRunFix(ID)), "" when there is none.
	Command string `json:"command,omitempty"`
	Fix     string `json:"fix,omitempty"`
	// Confirm is said before the Fix runs, when it costs something.
	Confirm string `json:"confirm,omitempty"`
}

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

// firstRunState is kept in firstrun.json in the data folder.
type firstRunState struct {
	Dismissed bool `json:"dismissed"`
	SelfTest  *struct {
		At      time.Time `json:"at"`
		OK      bool      `json:"ok"`
		Summary string    `json:"summary"`
		Image   string    `json:"image"`
	} `json:"self_test,omitempty"`
}

const firstRunFile = "firstrun.json"

// firstRunJobs tracks the fixes in progress, one per item.
var firstRunJobs = struct {
	sync.Mutex
	running map[*App]map[string]string // item -> message
}{running: map[*App]map[string]string{}}

func (a *App) firstRunBusy(id string) (string, bool) {
	firstRunJobs.Lock()
	defer firstRunJobs.Unlock()
	msg, ok := firstRunJobs.running[a][id]
	return msg, ok
}

// startJob runs fn in the background as the fix of item id, once at a
// time, and announces the change when it ends.
func (a *App) startJob(id, msg string, fn func() error) bool {
	firstRunJobs.Lock()
	if firstRunJobs.running[a] == nil {
		firstRunJobs.running[a] = map[string]string{}
	}
	if _, busy := firstRunJobs.running[a][id]; busy {
		firstRunJobs.Unlock()
		return false
	}
	firstRunJobs.running[a][id] = msg
	firstRunJobs.Unlock()
	a.emit("firstrun:progress", FirstRunProgress{ID: id, Message: msg})
	go func() {
		err := fn()
		firstRunJobs.Lock()
		delete(firstRunJobs.running[a], id)
		firstRunJobs.Unlock()
		if err != nil {
			a.log.Warn("first run: fix failed", "item", id, "err", err)
			a.emit("firstrun:progress", FirstRunProgress{ID: id, Message: err.Error()})
			a.setFirstRunError(id, err)
		} else {
			a.setFirstRunError(id, nil)
		}
		a.emit("firstrun:changed", id)
	}()
	return true
}

var firstRunErrors = struct {
	sync.Mutex
	m map[*App]map[string]string
}{m: map[*App]map[string]string{}}

func (a *App) setFirstRunError(id string, err error) {
	firstRunErrors.Lock()
	defer firstRunErrors.Unlock()
	if firstRunErrors.m[a] == nil {
		firstRunErrors.m[a] = map[string]string{}
	}
	if err == nil {
		delete(firstRunErrors.m[a], id)
	} else {
		firstRunErrors.m[a][id] = err.Error()
	}
}

func (a *App) firstRunError(id string) string {
	firstRunErrors.Lock()
	defer firstRunErrors.Unlock()
	return firstRunErrors.m[a][id]
}

func (a *App) loadFirstRun() firstRunState {
	var st firstRunState
	if data, err := os.ReadFile(filepath.Join(a.cfg.DataDir, firstRunFile)); err == nil {
		_ = json.Unmarshal(data, &st)
	}
	return st
}

func (a *App) saveFirstRun(st firstRunState) error {
	data, _ := json.MarshalIndent(st, "", "  ")
	return atomicfile.WriteFile(filepath.Join(a.cfg.DataDir, firstRunFile), data, 0o600)
}

// StartFirstRun is called once the window or `rehome serve` is up: when
// the sandbox image is missing and an archive of it is at hand (shipped
// by the rehome-sandbox-image package, or cached), it loads it in the
// background, checking its SHA-256, with progress — no command needed.
func StartFirstRun(a *App) {
	// Only the packaged archive: a developer's cached one is loaded by the
	// first run that needs it (EnsureImage), without a Podman connection at
	// every start.
	if sandbox.PackagedImageArchive() == "" {
		return // nothing to load: the checklist says how to get the image
	}
	go func() {
		e, err := a.engine()
		if err != nil {
			return // no Podman: the checklist says so
		}
		st, err := e.ImageStatus(a.ctx)
		if err != nil || st.Present {
			return
		}
		a.startImageLoad()
	}()
}

// startImageLoad loads the shipped or cached archive in the background.
func (a *App) startImageLoad() bool {
	archive := sandbox.PackagedImageArchive()
	if archive == "" {
		archive = filepath.Join(sandbox.CacheDir(), sandbox.ArchiveName())
	}
	return a.startJob("image", "loading the sandbox image from "+archive, func() error {
		e, err := a.engine()
		if err != nil {
			return err
		}
		t0 := time.Now()
		ctx := sandbox.WithLoadProgress(a.ctx, func(stage string, done, total int64) {
			msg := "loading the sandbox image into Podman"
			switch {
			case stage == "verify":
				msg = "checking the image archive's SHA-256"
			case done >= total:
				msg = "Podman is unpacking the sandbox image"
			}
			a.emit("firstrun:progress", FirstRunProgress{ID: "image", Message: msg, Done: done, Total: total})
		})
		if _, err := e.LoadImage(ctx, archive); err != nil {
			return err
		}
		a.log.Info("first run: image loaded", "archive", archive, "seconds", time.Since(t0).Seconds())
		a.emit("image:progress", "loaded "+filepath.Base(archive))
		return nil
	})
}

// FirstRunStatus checks each item of the checklist.
func (a *App) FirstRunStatus() (FirstRun, error) {
	var fr FirstRun
	add := func(it FirstRunItem) {
		if msg, busy := a.firstRunBusy(it.ID); busy {
			it.State, it.Detail = "working", msg
		} else if e := a.firstRunError(it.ID); e != "" && it.State != "ok" {
			it.Detail = e + " — " + it.Detail
		}
		fr.Items = append(fr.Items, it)
	}
	ctx := a.ctx

	// 1. Podman.
	e, err := a.engine()
	if err != nil {
		it := FirstRunItem{ID: "podman", Title: "Podman is installed and answers", State: "fail", Detail: err.Error()}
		if errors.Is(err, sandbox.ErrPodmanMissing) {
			it.Command = sandbox.InstallHint()
		}
		add(it)
	} else {
		h := e.Host()
		add(FirstRunItem{ID: "podman", Title: "Podman is installed and answers", State: "ok",
			Detail: fmt.Sprintf("Podman %s at %s", h.PodmanVersion, h.ServiceURI)})
	}

	// 2. Rootless: subordinate ids, the user's socket.
	rc := sandbox.CheckRootless()
	switch {
	case rc.Root:
		add(FirstRunItem{ID: "rootless", Title: "Podman runs as root", State: "ok", Detail: "rehome runs as root, so it uses rootful Podman, with an unprivileged user inside each sandbox"})
	case !rc.SubUIDs || !rc.SubGIDs || !rc.NewUIDMap:
		add(FirstRunItem{ID: "rootless", Title: "Rootless Podman is ready", State: "fail",
			Detail:  fmt.Sprintf("%s has no subordinate user or group ids (/etc/subuid, /etc/subgid) or newuidmap is missing; an administrator adds them once", rc.User),
			Command: rc.FixIDs})
	case !rc.Socket:
		it := FirstRunItem{ID: "rootless", Title: "Rootless Podman is ready", State: "warn",
			Detail:  "your Podman socket is not enabled, so each rehome session starts a private Podman service (about a second more at start)",
			Command: rc.FixSocket}
		if rc.Systemd {
			it.Fix = "Enable the socket"
		}
		add(it)
	default:
		add(FirstRunItem{ID: "rootless", Title: "Rootless Podman is ready", State: "ok", Detail: "subordinate ids set; your Podman socket listens at " + rc.SocketPath})
	}

	if e == nil {
		for _, id := range []string{"storage", "image", "selftest"} {
			add(FirstRunItem{ID: id, Title: firstRunTitles[id], State: "todo", Detail: "needs Podman first"})
		}
		return finishFirstRun(a, fr), nil
	}

	// 3. Storage driver.
	driver, rootless, err := e.StorageDriver(ctx)
	switch {
	case err != nil:
		add(FirstRunItem{ID: "storage", Title: firstRunTitles["storage"], State: "warn", Detail: err.Error()})
	case sandbox.VFSAdvice(driver, rootless) != "":
		it := FirstRunItem{ID: "storage", Title: firstRunTitles["storage"], State: "warn", Detail: sandbox.VFSAdvice(driver, rootless)}
		if sandbox.OverlaySupported() {
			it.Fix = "Switch to overlay"
			it.Confirm = "This resets your Podman storage: every container and image of your user is removed (rehome loads its own image again). Continue?"
			it.Command = fmt.Sprintf("podman system reset --force && mkdir -p %s && printf '[storage]\\ndriver = \"overlay\"\\n' > %s",
				filepath.Dir(sandbox.StorageConfPath()), sandbox.StorageConfPath())
		}
		add(it)
	default:
		add(FirstRunItem{ID: "storage", Title: firstRunTitles["storage"], State: "ok", Detail: "Podman stores images with " + driver})
	}

	// 4. The image.
	img, err := e.ImageStatus(ctx)
	switch {
	case err != nil:
		add(FirstRunItem{ID: "image", Title: firstRunTitles["image"], State: "fail", Detail: err.Error()})
	case img.Present:
		add(FirstRunItem{ID: "image", Title: firstRunTitles["image"], State: "ok", Detail: img.Image + " is in Podman's storage"})
	default:
		it := FirstRunItem{ID: "image", Title: firstRunTitles["image"], State: "fail"}
		if p := sandbox.PackagedImageArchive(); p != "" {
			it.Detail, it.Fix, it.Command = "the rehome-sandbox-image package is installed: load it ("+p+")", "Load the image", "rehome sandbox image load "+p
		} else if img.ArchivePresent {
			it.Detail, it.Fix, it.Command = "a cached archive is at "+img.Archive, "Load the image", "rehome sandbox image load "+img.Archive
		} else {
			it.Detail = "install the rehome-sandbox-image package (in the offline bundle), build the image (needs the Debian mirror, a few minutes), or load an archive made elsewhere (Settings → Sandbox → Load from file)"
			it.Command = "sudo apt-get install ./rehome-sandbox-image_*.deb   # or: rehome sandbox image build"
		}
		add(it)
	}

	// 5. The self-test, for this image.
	st := a.loadFirstRun()
	switch {
	case st.SelfTest == nil || st.SelfTest.Image != sandbox.ImageRef():
		add(FirstRunItem{ID: "selftest", Title: firstRunTitles["selftest"], State: "todo", Detail: "attacks each guarantee of the sandbox (about 10 s)", Fix: "Run the self-test", Command: "rehome sandbox doctor"})
	case st.SelfTest.OK:
		add(FirstRunItem{ID: "selftest", Title: firstRunTitles["selftest"], State: "ok", Detail: st.SelfTest.Summary})
	default:
		add(FirstRunItem{ID: "selftest", Title: firstRunTitles["selftest"], State: "fail", Detail: st.SelfTest.Summary, Fix: "Run it again", Command: "rehome sandbox doctor"})
	}
	return finishFirstRun(a, fr), nil
}

var firstRunTitles = map[string]string{
	"storage":  "Podman's storage shares the image between runs",
	"image":    "The sandbox image is loaded",
	"selftest": "The sandbox's self-test passed",
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
	fr.Show = attention && !a.loadFirstRun().Dismissed
	return fr
}

// FirstRunFix runs the Fix of one item in the background (progress as
// "firstrun:progress", then "firstrun:changed") and returns the checklist.
func (a *App) FirstRunFix(id string) (FirstRun, error) {
	switch id {
	case "rootless":
		a.startJob(id, "enabling your Podman socket", func() error {
			if err := sandbox.EnableSocket(a.ctx); err != nil {
				return err
			}
			a.closeSandbox() // use the socket from now on
			return nil
		})
	case "storage":
		a.startJob(id, "resetting your Podman storage and switching it to overlay", func() error {
			a.closeSandbox() // a private service must not hold the old store
			conf, err := sandbox.SwitchToOverlay(a.ctx)
			if err != nil {
				return err
			}
			a.log.Info("first run: storage switched to overlay", "conf", conf)
			if sandbox.PackagedImageArchive() != "" {
				a.startImageLoad() // the reset removed the image
			}
			return nil
		})
	case "image":
		if !a.startImageLoad() {
			return a.FirstRunStatus()
		}
	case "selftest":
		a.startJob(id, "running the self-test", func() error {
			rep, _ := a.VerifyIsolation()
			st := a.loadFirstRun()
			st.SelfTest = &struct {
				At      time.Time `json:"at"`
				OK      bool      `json:"ok"`
				Summary string    `json:"summary"`
				Image   string    `json:"image"`
			}{time.Now().UTC(), rep.OK, rep.Summary, sandbox.ImageRef()}
			return a.saveFirstRun(st)
		})
	default:
		return FirstRun{}, fmt.Errorf("no fix named %q (podman, rootless, storage, image, selftest)", id)
	}
	return a.FirstRunStatus()
}

// DismissFirstRun stops the checklist opening at start (Settings still
// shows it).
func (a *App) DismissFirstRun() error {
	st := a.loadFirstRun()
	st.Dismissed = true
	return a.saveFirstRun(st)
}
