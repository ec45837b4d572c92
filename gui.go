package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"rehome/app"
	"rehome/backend/atomicfile"
)

//go:embed build/appicon.png
var appIcon []byte

// Window size limits; a remembered geometry outside them is ignored.
const (
	defaultWidth, defaultHeight = 1280, 820
	minWidth, minHeight         = 800, 600 // the layout keeps the question box in view from 800×600 (docs/window.md)
	maxRemembered               = 16384
	geometryFile                = "window.json"
)

// runWindow opens the desktop window. With no display it says so and
// serves the UI to a browser instead. A second launch on the same data
// folder hands its file to the open window, brings it forward and exits.
func runWindow(env *cliEnv, openFile string) int {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		fmt.Fprintln(env.stderr, "rehome: no display found (DISPLAY and WAYLAND_DISPLAY are unset): starting `rehome serve` instead; open the URL below in a browser on this machine.")
		return cmdServe(env, nil)
	}
	dir, err := env.dir()
	if err != nil {
		return env.fail(err)
	}
	var files []string
	if openFile != "" {
		abs, err := filepath.Abs(openFile)
		if err != nil {
			return env.fail(err)
		}
		files = append(files, abs)
	}

	// One window per data folder: the database allows one writer.
	guard, err := listenSingleInstance(dir)
	if errors.Is(err, errAlreadyRunning) {
		if err := handOver(dir, files); err != nil {
			return env.fail(fmt.Errorf("rehome is already open on %s but does not answer: %w (close it, or end it with `pkill -x rehome`)", dir, err))
		}
		fmt.Fprintln(env.stdout, "rehome is already open: brought its window forward.")
		env.log.Info("handed over to the open window", "files", files)
		return exitOK
	}
	if err != nil {
		env.log.Warn("single-instance guard unavailable", "err", err)
	}

	assets, err := assets()
	if err != nil {
		return env.fail(err)
	}
	a := app.New(app.Config{DataDir: dir, Log: env.log})
	w := &window{log: env.log, opened: files}
	geo := loadGeometry(dir)
	width, height := defaultWidth, defaultHeight
	if geo.valid() {
		width, height = geo.Width, geo.Height
	}
	startState := options.Normal
	if geo.Maximised {
		startState = options.Maximised
	}
	var lock *options.SingleInstanceLock
	if guard == nil && goruntime.GOOS != "linux" {
		// Elsewhere Wails' own guard (named pipes, Mach ports) stands in.
		lock = &options.SingleInstanceLock{
			UniqueId: "io.rehome.desktop",
			OnSecondInstanceLaunch: func(d options.SecondInstanceData) {
				w.receive(resolveArgs(d.Args, d.WorkingDirectory))
			},
		}
	}

	err = wails.Run(&options.App{
		Title:            "rehome",
		Width:            width,
		Height:           height,
		MinWidth:         minWidth,
		MinHeight:        minHeight,
		WindowStartState: startState,
		AssetServer: &assetserver.Options{
			Assets: assets,
			// Plots and outputs of runs, shown inline (<img src="/api/file?path=…">).
			Handler: fileRoutes(a.App),
		},
		BackgroundColour: options.NewRGB(0x1b, 0x1d, 0x23),
		OnStartup: func(ctx context.Context) {
			w.attach(ctx)
			// The store opens here, after the single-instance check, so a
			// second launch focuses this window instead of failing on the
			// database lock. An open error is shown by the UI.
			_ = a.Open()
			a.SetEmitter(w)
			app.StartFirstRun(a.App) // loads a shipped sandbox image, with progress
			// Real file drops land in the UI through runtime.OnFileDrop
			// (JS); this records them for support and tests, and lets the
			// UI read them (the user gave them: see app/access.go).
			runtime.OnFileDrop(ctx, func(x, y int, paths []string) {
				app.GrantRead(a.App, paths...)
				env.log.Info("file dropped", "x", x, "y", y, "paths", paths)
			})
			if guard != nil {
				go w.serveSecondLaunches(guard)
			}
			env.log.Info("window started", "data", dir, "open", files)
		},
		OnDomReady: func(ctx context.Context) {
			if geo.valid() && !geo.Maximised {
				runtime.WindowSetPosition(ctx, geo.X, geo.Y)
			}
			if w.hasOpened() {
				w.showCode()
			}
		},
		// Closing the window, and SIGTERM/SIGINT (Wails turns them into a
		// close), remember where the window was.
		OnBeforeClose: func(ctx context.Context) bool {
			geometryOf(ctx).save(dir, env.log)
			return false
		},
		OnShutdown: func(ctx context.Context) {
			if guard != nil {
				guard.Close()
			}
			// Cancels the App's context (runs, answers, image loads end),
			// stops the Podman service rehome started, if any, and
			// releases the store.
			a.Close()
		},
		Bind: []any{a.App}, // the Host (Open, Close) is not bound
		DragAndDrop: &options.DragAndDrop{
			EnableFileDrop: true,
		},
		SingleInstanceLock: lock,
		Linux: &linux.Options{
			ProgramName:         "rehome",
			Icon:                appIcon,
			WindowIsTranslucent: false,
			WebviewGpuPolicy:    linux.WebviewGpuPolicyOnDemand,
		},
	})
	if err != nil {
		return env.fail(fmt.Errorf("open the window: %w (run `rehome serve` to use rehome in a browser)", err))
	}
	return exitOK
}

// fileRoutes answers the window's requests that are not the UI's own files.
func fileRoutes(a *app.App) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /api/file", app.NewFileHandler(a))
	return mux
}

// window is the desktop window as the App sees it: events, native
// dialogs, and the files opened with rehome.
type window struct {
	log    *slog.Logger
	mu     sync.Mutex
	ctx    context.Context
	opened []string
}

var _ app.Window = (*window)(nil)

func (w *window) attach(ctx context.Context) {
	w.mu.Lock()
	w.ctx = ctx
	w.mu.Unlock()
}

func (w *window) context() context.Context {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ctx
}

// Emit sends a progress event to the UI.
func (w *window) Emit(event string, payload any) {
	if ctx := w.context(); ctx != nil {
		runtime.EventsEmit(ctx, event, payload)
	}
}

// OpenFileDialog shows GTK's file chooser.
func (w *window) OpenFileDialog(title string, filters []app.FileFilter) (string, error) {
	ctx := w.context()
	if ctx == nil {
		return "", errors.New("the window is still starting: try again in a moment")
	}
	var fs []runtime.FileFilter
	for _, f := range filters {
		fs = append(fs, runtime.FileFilter{DisplayName: f.Name, Pattern: f.Patterns})
	}
	home, _ := os.UserHomeDir()
	return runtime.OpenFileDialog(ctx, runtime.OpenDialogOptions{Title: title, Filters: fs, DefaultDirectory: home})
}

// SaveFileDialog shows GTK's save dialog.
func (w *window) SaveFileDialog(title, name string) (string, error) {
	ctx := w.context()
	if ctx == nil {
		return "", errors.New("the window is still starting: try again in a moment")
	}
	dir, _ := os.UserHomeDir()
	if d := filepath.Join(dir, "Downloads"); isDir(d) {
		dir = d
	}
	return runtime.SaveFileDialog(ctx, runtime.SaveDialogOptions{Title: title, DefaultFilename: name, DefaultDirectory: dir, CanCreateDirectories: true})
}

// TakeOpened hands the files opened with rehome to the UI, once.
func (w *window) TakeOpened() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	o := w.opened
	w.opened = nil
	return o
}

func (w *window) hasOpened() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.opened) > 0
}

// showCode switches the UI to the Code Interpreter, which takes the
// opened files (OpenedFiles) when it shows, and nudges it if it already is.
func (w *window) showCode() {
	ctx := w.context()
	if ctx == nil {
		return
	}
	runtime.WindowExecJS(ctx, `if (location.hash !== '#/code') location.hash = '#/code';`)
	runtime.EventsEmit(ctx, "file:open", nil)
}

// receive handles a second launch: bring the window forward and open its files.
func (w *window) receive(files []string) {
	w.log.Info("second launch", "files", files)
	ctx := w.context()
	if ctx == nil {
		return
	}
	runtime.WindowUnminimise(ctx)
	runtime.WindowShow(ctx) // gtk_window_present: raises and focuses
	var ok []string
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			ok = append(ok, f)
		}
	}
	if len(ok) > 0 {
		w.mu.Lock()
		w.opened = append(w.opened, ok...)
		w.mu.Unlock()
		w.showCode()
	}
}

// The single-instance guard: an abstract Unix socket named after the data
// folder. It needs no session bus (Xvfb, ssh -X, minimal desktops), leaves
// no file behind after a crash, and lets windows on different data
// folders (REHOME_HOME) run side by side.

var errAlreadyRunning = errors.New("rehome is already running on this data folder")

func instanceAddr(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	sum := sha256.Sum256([]byte(abs))
	return "@rehome-window-" + hex.EncodeToString(sum[:12])
}

func listenSingleInstance(dir string) (net.Listener, error) {
	if goruntime.GOOS != "linux" {
		return nil, nil
	}
	ln, err := net.Listen("unix", instanceAddr(dir))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, errAlreadyRunning
		}
		return nil, err
	}
	return ln, nil
}

type handOverMsg struct {
	Files []string `json:"files"`
}

// handOver passes files to the window already open on dir.
func handOver(dir string, files []string) error {
	c, err := net.DialTimeout("unix", instanceAddr(dir), 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if files == nil {
		files = []string{}
	}
	if err := json.NewEncoder(c).Encode(handOverMsg{Files: files}); err != nil {
		return err
	}
	reply, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(reply) != "ok" {
		return fmt.Errorf("unexpected answer %q", reply)
	}
	return nil
}

func (w *window) serveSecondLaunches(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return // closed at shutdown
		}
		go func() {
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			var m handOverMsg
			if err := json.NewDecoder(io.LimitReader(c, 64<<10)).Decode(&m); err != nil {
				w.log.Warn("second launch: bad message", "err", err)
				return
			}
			fmt.Fprintln(c, "ok")
			w.receive(m.Files)
		}()
	}
}

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

// geometry is the window's remembered place on screen.
type geometry struct {
	Width     int  `json:"width"`
	Height    int  `json:"height"`
	X         int  `json:"x"`
	Y         int  `json:"y"`
	Maximised bool `json:"maximised"`
}

func (g geometry) valid() bool {
	return g.Width >= minWidth && g.Height >= minHeight && g.Width <= maxRemembered && g.Height <= maxRemembered &&
		g.X > -g.Width/2 && g.Y >= 0 && g.X < maxRemembered && g.Y < maxRemembered
}

func loadGeometry(dir string) geometry {
	var g geometry
	b, err := os.ReadFile(filepath.Join(dir, geometryFile))
	if err != nil || json.Unmarshal(b, &g) != nil {
		return geometry{}
	}
	return g
}

// geometryOf reads the window's size and place now.
func geometryOf(ctx context.Context) geometry {
	var g geometry
	g.Maximised = runtime.WindowIsMaximised(ctx)
	g.Width, g.Height = runtime.WindowGetSize(ctx)
	g.X, g.Y = runtime.WindowGetPosition(ctx)
	return g
}

func (g geometry) save(dir string, log *slog.Logger) {
	if g.Maximised {
		// Keep the size to return to; remember only that it was maximised.
		old := loadGeometry(dir)
		old.Maximised = true
		g = old
	} else if !g.valid() {
		return
	}
	b, _ := json.Marshal(g)
	if err := atomicfile.WriteFile(filepath.Join(dir, geometryFile), b, 0o600); err != nil {
		log.Warn("remember the window's place", "err", err)
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
