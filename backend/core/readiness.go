package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"rehome/backend/atomicfile"
	"rehome/sandbox"
	"rehome/sandbox/link"
)

// The readiness checklist: what the Code Interpreter needs on this
// machine — Podman, rootless Podman's ids and socket, a storage driver
// that does not copy the image for every run, the image, a passed
// self-test — each with its state, the command that fixes it, and the fix
// a face can run itself where no root is needed. The window's first run
// shows it, `rehome doctor` prints it.

// Check is one item of the readiness checklist.
type Check struct {
	ID    string `json:"id"` // podman, rootless, storage, image, selftest
	Title string `json:"title"`
	// State: "ok", "warn" (works, but slower or weaker), "fail" or "todo"
	// (not checked yet).
	State  string `json:"state"`
	Detail string `json:"detail"`
	// Command fixes it by hand (may need root); Fix names the button that
	// fixes it from the window, "" when there is none.
	Command string `json:"command,omitempty"`
	Fix     string `json:"fix,omitempty"`
	// Confirm is said before the Fix runs, when it costs something.
	Confirm string `json:"confirm,omitempty"`
}

// CheckIDs are the checklist's items, in order.
var CheckIDs = []string{"podman", "rootless", "storage", "image", "selftest"}

var checkTitles = map[string]string{
	"podman":   "Podman is installed and answers",
	"rootless": "Rootless Podman is ready",
	"storage":  "Podman's storage shares the image between runs",
	"image":    "The sandbox image is loaded",
	"selftest": "The sandbox's self-test passed",
}

// Readiness checks each item of the checklist; ctx bounds the checks.
func (c *Core) Readiness(ctx context.Context) []Check {
	var out []Check
	add := func(id, state, detail string) *Check {
		out = append(out, newCheck(id, state, detail))
		return &out[len(out)-1]
	}

	// 1. Podman.
	e, err := c.Engine(ctx)
	if err != nil {
		it := add("podman", "fail", err.Error())
		if errors.Is(err, link.ErrPodmanMissing) {
			it.Command = link.InstallHint()
		}
	} else {
		h := e.Host()
		add("podman", "ok", fmt.Sprintf("Podman %s at %s", h.PodmanVersion, h.ServiceURI))
	}

	// 2. Rootless: subordinate ids, the user's socket.
	out = append(out, rootlessCheck())

	if e == nil {
		for _, id := range CheckIDs[2:] {
			add(id, "todo", "needs Podman first")
		}
		return out
	}

	// 3. Storage: where the service keeps the image, what a run costs.
	// Never a reset of the user's own storage (see sandbox/storage.go).
	if sf, err := e.StorageFinding(ctx); err != nil {
		add("storage", "warn", err.Error())
	} else {
		add("storage", sf.State, sf.Detail)
	}

	// 4. The image.
	out = append(out, imageCheck(e.ImageStatus(ctx)))

	// 5. The self-test, for this image.
	st := c.readinessState()
	switch {
	case st.SelfTest == nil || st.SelfTest.Image != sandbox.ImageRef():
		it := add("selftest", "todo", "attacks each guarantee of the sandbox (under a minute)")
		it.Fix, it.Command = "Run the self-test", "rehome sandbox doctor"
	case st.SelfTest.OK:
		add("selftest", "ok", st.SelfTest.Summary)
	default:
		it := add("selftest", "fail", st.SelfTest.Summary)
		it.Fix, it.Command = "Run it again", "rehome sandbox doctor"
	}
	return out
}

// newCheck is an item of the checklist, with its title.
func newCheck(id, state, detail string) Check {
	return Check{ID: id, Title: checkTitles[id], State: state, Detail: detail}
}

// rootlessCheck says whether rootless Podman is ready: subordinate ids,
// newuidmap, the user's socket (or that rehome runs as root).
func rootlessCheck() Check {
	rc := sandbox.CheckRootless()
	switch {
	case rc.Root:
		it := newCheck("rootless", "ok", "rehome runs as root, so it uses rootful Podman, with an unprivileged user inside each sandbox")
		it.Title = "Podman runs as root"
		return it
	case !rc.SubUIDs || !rc.SubGIDs || !rc.NewUIDMap:
		it := newCheck("rootless", "fail", fmt.Sprintf("%s has no subordinate user or group ids (/etc/subuid, /etc/subgid) or newuidmap is missing; an administrator adds them once", rc.User))
		it.Command = rc.FixIDs
		return it
	case !rc.Socket:
		it := newCheck("rootless", "warn", "your Podman socket is not enabled, so each rehome session starts a private Podman service (about a second more at start)")
		it.Command = rc.FixSocket
		if rc.Systemd {
			it.Fix = "Enable the socket"
		}
		return it
	default:
		return newCheck("rootless", "ok", "subordinate ids set; your Podman socket listens at "+rc.SocketPath)
	}
}

// imageCheck says whether the sandbox image is loaded, and else how to
// load it: the package's archive, a cached one, or a build.
func imageCheck(img sandbox.ImageStatus, err error) Check {
	switch {
	case err != nil:
		return newCheck("image", "fail", err.Error())
	case img.Ready(): // the words of `rehome sandbox image status` (ImageStatus.State)
		return newCheck("image", "ok", img.Image+": "+img.Summary())
	}
	it := newCheck("image", "fail", "")
	if p := sandbox.PackagedImageArchive(); p != "" {
		it.Detail, it.Fix, it.Command = "the rehome-sandbox-image package is installed: load it ("+p+")", "Load the image", "rehome sandbox image load "+p
	} else if img.ArchivePresent {
		it.Detail, it.Fix, it.Command = "a cached archive is at "+img.Archive, "Load the image", "rehome sandbox image load "+img.Archive
	} else {
		it.Detail = "install the rehome-sandbox-image package (in the offline bundle), build the image (needs the Debian mirror, a few minutes), or load an archive made elsewhere (Settings → Sandbox → Load from file)"
		it.Command = "sudo apt-get install ./rehome-sandbox-image_*.deb   # or: rehome sandbox image build"
	}
	return it
}

// readinessFile keeps the self-test's outcome and whether the user put
// the checklist off, in the data folder.
const readinessFile = "firstrun.json"

// readinessState is what readinessFile holds.
type readinessState struct {
	Dismissed bool          `json:"dismissed"`
	SelfTest  *selfTestNote `json:"self_test,omitempty"`
}

type selfTestNote struct {
	At      time.Time `json:"at"`
	OK      bool      `json:"ok"`
	Summary string    `json:"summary"`
	Image   string    `json:"image"`
}

func (c *Core) readinessState() readinessState {
	var st readinessState
	if data, err := os.ReadFile(filepath.Join(c.dir, readinessFile)); err == nil {
		_ = json.Unmarshal(data, &st)
	}
	return st
}

func (c *Core) saveReadiness(st readinessState) error {
	data, _ := json.MarshalIndent(st, "", "  ")
	return atomicfile.WriteFile(filepath.Join(c.dir, readinessFile), data, 0o600)
}

// KeepSelfTest records the sandbox's self-test outcome for this image:
// the checklist's last item.
func (c *Core) KeepSelfTest(ok bool, summary string) error {
	st := c.readinessState()
	st.SelfTest = &selfTestNote{At: time.Now().UTC(), OK: ok, Summary: summary, Image: sandbox.ImageRef()}
	return c.saveReadiness(st)
}

// ReadinessDismissed reports whether the user put the checklist off (the
// window then does not open it at start).
func (c *Core) ReadinessDismissed() bool { return c.readinessState().Dismissed }

// DismissReadiness puts the checklist off.
func (c *Core) DismissReadiness() error {
	st := c.readinessState()
	st.Dismissed = true
	return c.saveReadiness(st)
}
