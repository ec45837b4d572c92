package browse

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"rehome/backend/llamarun"
	"rehome/backend/logs"
)

// DefaultKiwixIdle is how long kiwix-serve waits for the next search or
// article before it is stopped.
const DefaultKiwixIdle = 5 * time.Minute

// kiwixWait bounds kiwix-serve's start (it opens each ZIM's index).
const kiwixWait = 60 * time.Second

// KiwixBinary finds kiwix-serve: $REHOME_KIWIX_SERVE, else on PATH
// (Debian's kiwix-tools installs /usr/bin/kiwix-serve).
func KiwixBinary() (string, error) {
	if p := os.Getenv("REHOME_KIWIX_SERVE"); p != "" {
		return p, nil
	}
	p, err := exec.LookPath("kiwix-serve")
	if err != nil {
		return "", fmt.Errorf("%w: install it with `sudo apt-get install kiwix-tools` (the .deb and the offline bundle bring it)", ErrNoKiwix)
	}
	return p, nil
}

// Kiwix is one kiwix-serve process serving a set of ZIM files on a free
// loopback port.
type Kiwix struct {
	// URL is its root (http://127.0.0.1:PORT).
	URL string
	// Books are the ZIM files by the name their URLs use.
	Books map[string]string
	PID   int

	cmd  *exec.Cmd
	done chan struct{}
	logf *os.File
}

// StartKiwix serves books (name → ZIM path) from a folder of links named
// for each book (kiwix-serve names a book's URLs for its file) on a free
// loopback port, and waits until it answers. logPath may be "".
func StartKiwix(ctx context.Context, bin, linkDir string, books map[string]string, logPath string) (*Kiwix, error) {
	if len(books) == 0 {
		return nil, ErrNoLibrary
	}
	if err := os.RemoveAll(linkDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(linkDir, 0o700); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(books))
	for n := range books {
		names = append(names, n)
	}
	slices.Sort(names)
	port, err := llamarun.FreePort()
	if err != nil {
		return nil, err
	}
	args := []string{"--address", "127.0.0.1", "--port", strconv.Itoa(port), "--attachToProcess", strconv.Itoa(os.Getpid())}
	for _, n := range names {
		link := filepath.Join(linkDir, n+".zim")
		if err := os.Symlink(books[n], link); err != nil {
			return nil, err
		}
		args = append(args, link)
	}
	logf, err := openLog(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	llamarun.Detach(cmd)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("%w: start %s: %v", ErrNoKiwix, bin, err)
	}
	k := &Kiwix{URL: "http://127.0.0.1:" + strconv.Itoa(port), Books: books, PID: cmd.Process.Pid, cmd: cmd, done: make(chan struct{}), logf: logf}
	go func() { cmd.Wait(); close(k.done) }()
	wait, cancel := context.WithTimeout(ctx, kiwixWait)
	defer cancel()
	for {
		select {
		case <-k.done:
			return nil, fmt.Errorf("%w: kiwix-serve exited: %s", ErrNoKiwix, k.tail())
		case <-wait.Done():
			k.Stop()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%w: kiwix-serve did not answer within %s: %s", ErrNoKiwix, kiwixWait, k.tail())
		case <-time.After(50 * time.Millisecond):
		}
		req, _ := http.NewRequestWithContext(wait, http.MethodGet, k.URL+"/catalog/v2/entries?count=1", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return k, nil
			}
		}
	}
}

// Stop ends kiwix-serve: SIGTERM, then SIGKILL after two seconds.
func (k *Kiwix) Stop() {
	llamarun.StopGroup(k.PID, k.done, 2*time.Second)
	k.logf.Close()
}

// Exited is closed when the process has ended.
func (k *Kiwix) Exited() <-chan struct{} { return k.done }

func (k *Kiwix) tail() string {
	b := make([]byte, 2048)
	fi, err := k.logf.Stat()
	if err != nil {
		return ""
	}
	off := max(0, fi.Size()-int64(len(b)))
	n, _ := k.logf.ReadAt(b, off)
	s := strings.TrimSpace(string(b[:n]))
	if s == "" {
		return "(no output)"
	}
	return strings.ReplaceAll(s, "\n", " / ")
}

func openLog(path string) (*os.File, error) {
	if path != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
	}
	return logs.OpenChild(path, "rehome-kiwix-*.log")
}

// Runner keeps one kiwix-serve for the carried libraries: started on the
// first use, kept while in use, stopped after Idle without one, restarted
// when the set of libraries changes.
type Runner struct {
	Bin     string
	LinkDir string
	LogPath string
	Idle    time.Duration

	mu     sync.Mutex
	cur    *Kiwix
	leases int
	timer  *time.Timer
}

// Use runs fn against a kiwix-serve serving books (starting or
// restarting it as needed); the idle clock starts again when fn returns.
func (r *Runner) Use(ctx context.Context, books map[string]string, fn func(*Kiwix) error) error {
	k, err := r.acquire(ctx, books)
	if err != nil {
		return err
	}
	defer r.release(k)
	return fn(k)
}

func (r *Runner) acquire(ctx context.Context, books map[string]string) (*Kiwix, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	if r.cur != nil {
		select {
		case <-r.cur.done:
			r.cur = nil
		default:
		}
	}
	if r.cur != nil && !sameBooks(r.cur.Books, books) {
		if r.leases > 0 {
			return nil, errors.New("the libraries changed while a search runs: try again when it is done")
		}
		r.cur.Stop()
		r.cur = nil
	}
	if r.cur == nil {
		bin := r.Bin
		if bin == "" {
			var err error
			if bin, err = KiwixBinary(); err != nil {
				return nil, err
			}
		}
		k, err := StartKiwix(ctx, bin, r.LinkDir, books, r.LogPath)
		if err != nil {
			return nil, err
		}
		r.cur = k
	}
	r.leases++
	return r.cur, nil
}

func (r *Runner) release(k *Kiwix) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leases--
	if r.leases > 0 || r.cur != k {
		return
	}
	idle := r.Idle
	if idle <= 0 {
		idle = DefaultKiwixIdle
	}
	r.timer = time.AfterFunc(idle, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.cur == k && r.leases == 0 {
			k.Stop()
			r.cur = nil
		}
	})
}

// Running is the kiwix-serve running now, or nil.
func (r *Runner) Running() *Kiwix {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// Close stops kiwix-serve.
func (r *Runner) Close() {
	r.mu.Lock()
	k := r.cur
	r.cur = nil
	if r.timer != nil {
		r.timer.Stop()
	}
	r.mu.Unlock()
	if k != nil {
		k.Stop()
	}
}

func sameBooks(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for n, p := range a {
		if b[n] != p {
			return false
		}
	}
	return true
}
