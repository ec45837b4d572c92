package window

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"rehome/app"
	"rehome/app/bridge"
	"rehome/backend/core"
	"rehome/backend/logs"
	"rehome/backend/termtext"
)

// Window size limits; a remembered geometry outside them is ignored.
const (
	defaultWidth, defaultHeight = 1280, 820
	minWidth, minHeight         = 800, 600 // the layout keeps the question box in view from 800×600 (docs/window.md)
	maxRemembered               = 16384
	geometryFile                = "window.json"
)

// Config is what the entry hands the window.
type Config struct {
	Version string                // rehome's version, shown in the header
	Verbose bool                  // -v: debug lines in the log, and on stderr
	Open    string                // a file to open ("Open with rehome"), or ""
	Assets  func() (fs.FS, error) // the built UI
	Icon    []byte                // the window's icon (PNG)
	// Door, if set, starts answering the terminal's commands once the
	// data folder is open (app/cli's door); the window calls stop before
	// it closes the App.
	Door func(h *app.Host, log *slog.Logger) (stop func())
}

// Run opens the desktop window and returns the exit code. A second
// launch on the same data folder hands its file to the open window,
// brings it forward and exits. The entry checks for a display first.
func Run(cfg Config) int {
	app.Version = cfg.Version
	dir, err := core.DefaultDataDir()
	if err != nil {
		return windowFail(err)
	}
	log, closeLog := logs.New(logs.Options{Dir: dir, Verbose: cfg.Verbose, Stderr: os.Stderr})
	defer closeLog()
	var files []string
	if cfg.Open != "" {
		abs, err := filepath.Abs(cfg.Open)
		if err != nil {
			return windowFail(err)
		}
		files = append(files, abs)
	}

	// One window per data folder: the database allows one writer.
	guard, err := listenSingleInstance(dir)
	if errors.Is(err, errAlreadyRunning) {
		if err := handOver(dir, files); err != nil {
			return windowFail(fmt.Errorf("rehome is already open on %s but does not answer: %w (close it, or end it with `pkill -x rehome-window`)", dir, err))
		}
		fmt.Fprintln(os.Stdout, "rehome is already open: brought its window forward.")
		log.Info("handed over to the open window", "files", files)
		return 0
	}
	if err != nil {
		log.Warn("single-instance guard unavailable", "err", err)
	}

	assets, err := cfg.Assets()
	if err != nil {
		return windowFail(err)
	}
	// Before anything else starts threads that may read the environment
	// (uigl.go sets two variables for a moment).
	gpu := gpuPolicy()
	gl, glErr := uiGL(gpu) // lighter.go
	l := &launch{cfg: cfg, dir: dir, log: log, files: files, guard: guard,
		a: app.New(app.Config{DataDir: dir, Log: log}), geo: loadGeometry(dir), stopDoor: func() {}}
	l.w = &window{log: log, opened: files, host: l.a}
	l.calls = app.NewCalls(l.a.App)
	l.gpu, l.cache = gpu, lighten() // lighter.go
	log.Info("web view", "gpu", gpuPolicyName(l.gpu), "cache", l.cache, "ui_gl", gl, "error", glErr)
	if err := wails.Run(l.options(assets)); err != nil {
		return windowFail(fmt.Errorf("open the window: %w (run `rehome serve` to use rehome in a browser)", err))
	}
	return 0
}

// launch is one window's run: what Run set up, and the hooks Wails calls.
type launch struct {
	cfg      Config
	dir      string
	log      *slog.Logger
	files    []string     // the files to open
	guard    net.Listener // the single-instance guard (nil: none)
	a        *app.Host
	w        *window
	geo      geometry
	stopDoor func()
	gpu      linux.WebviewGpuPolicy // WebKit's GPU policy (lighter.go)
	cache    string                 // WebKit's cache model: "viewer" or "browser"
	calls    *app.Calls             // the page's one door (bound)
	resting  sync.Once              // the trims at rest start once (rest.go)
}

// options are the window's Wails options.
func (l *launch) options(assets fs.FS) *options.App {
	width, height := defaultWidth, defaultHeight
	if l.geo.valid() {
		width, height = l.geo.Width, l.geo.Height
	}
	startState := options.Normal
	if l.geo.Maximised {
		startState = options.Maximised
	}
	return &options.App{
		Title:            "rehome",
		Width:            width,
		Height:           height,
		MinWidth:         minWidth,
		MinHeight:        minHeight,
		WindowStartState: startState,
		AssetServer: &assetserver.Options{
			Assets: assets,
			// Plots and outputs of runs, shown inline (<img src="/api/file?path=…">).
			Handler: fileRoutes(l.a.App),
		},
		BackgroundColour: options.NewRGB(0x1b, 0x1d, 0x23),
		OnStartup:        l.startup,
		OnDomReady:       l.domReady,
		// Closing the window, and SIGTERM/SIGINT (Wails turns them into a
		// close), remember where the window was.
		OnBeforeClose: func(ctx context.Context) bool {
			geometryOf(ctx).save(l.dir, l.log)
			return false
		},
		OnShutdown: l.shutdown,
		// One bound method, Calls.Call, reaches the App's (the Host, Open and
		// Close, is not bound): Wails v2 recovers no panic on its call path.
		Bind: []any{l.calls},
		DragAndDrop: &options.DragAndDrop{
			EnableFileDrop: true,
		},
		SingleInstanceLock: l.instanceLock(),
		Linux: &linux.Options{
			ProgramName:         "rehome",
			Icon:                l.cfg.Icon,
			WindowIsTranslucent: false,
			WebviewGpuPolicy:    l.gpu, // lighter.go
		},
	}
}

// instanceLock is Wails' own single-instance guard (named pipes, Mach
// ports), standing in where rehome's is not (off Linux); nil on Linux.
func (l *launch) instanceLock() *options.SingleInstanceLock {
	if l.guard != nil || goruntime.GOOS == "linux" {
		return nil
	}
	return &options.SingleInstanceLock{
		UniqueId: "io.rehome.desktop",
		OnSecondInstanceLaunch: func(d options.SecondInstanceData) {
			l.w.receive(resolveArgs(d.Args, d.WorkingDirectory))
		},
	}
}

func (l *launch) startup(ctx context.Context) {
	a, log := l.a, l.log
	l.w.attach(ctx)
	// The store opens here, after the single-instance check, so a second
	// launch focuses this window instead of failing on the database lock.
	// An open error is shown by the UI.
	if a.Open() == nil && l.cfg.Door != nil {
		l.stopDoor = l.cfg.Door(a, log)
	}
	a.SetEmitter(l.w)
	app.StartFirstRun(a.App) // loads a shipped sandbox image, with progress
	// Real file drops land in the UI through runtime.OnFileDrop (JS); this
	// records them for support and tests, and lets the UI read them (the
	// user gave them: see app/access.go).
	runtime.OnFileDrop(ctx, func(x, y int, paths []string) {
		app.GrantRead(a.App, paths...)
		log.Info("file dropped", "x", x, "y", y, "paths", paths)
	})
	if l.guard != nil {
		go l.w.serveSecondLaunches(l.guard)
	}
	log.Info("window started", "data", l.dir, "open", l.files)
}

func (l *launch) domReady(ctx context.Context) {
	if l.geo.valid() && !l.geo.Maximised {
		runtime.WindowSetPosition(ctx, l.geo.X, l.geo.Y)
	}
	if l.w.hasOpened() {
		l.w.showCode()
	}
	if restOn() {
		l.resting.Do(func() { go rest{log: l.log, calls: l.calls, after: 5 * time.Second, quiet: time.Minute}.run(ctx) })
	}
}

func (l *launch) shutdown(context.Context) {
	if l.guard != nil {
		l.guard.Close()
	}
	l.stopDoor() // the terminal's commands end before the App closes
	// Cancels the App's context (runs, answers, image loads end), stops
	// the Podman service rehome started, if any, and releases the store.
	l.a.Close()
}

// fileRoutes answers the window's requests that are not the UI's own files.
func fileRoutes(a *app.App) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /api/file", bridge.NewFileHandler(a))
	return mux
}

// The single-instance guard: an abstract Unix socket named after the data
// folder. It needs no session bus (Xvfb, ssh -X, minimal desktops), leaves
// no file behind after a crash, and lets windows on different data
// folders (REHOME_HOME) run side by side.

// resolveArgs turns a second launch's file arguments into absolute paths.
func resolveArgs(args []string, cwd string) []string {
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if !filepath.IsAbs(a) {
			a = filepath.Join(cwd, a)
		}
		out = append(out, a)
	}
	return out
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// windowFail reports err on one line, as the CLI does, and returns 1.
func windowFail(err error) int {
	fmt.Fprintf(termtext.Writer(os.Stderr), "rehome: %s\n", strings.ReplaceAll(err.Error(), "\n", " ")) // outside words may be in it
	return 1
}
