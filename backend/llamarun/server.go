package llamarun

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"rehome/backend/logs"
)

// healthWait is how long a model may take to load before Start gives up.
const healthWait = 10 * time.Minute

// Server is a running llama-server for one carried model.
type Server struct {
	// URL is what an OpenAI client takes (http://127.0.0.1:PORT/v1), Key
	// the bearer token it must send.
	URL  string `json:"url"`
	Key  string `json:"-"`
	Plan Plan   `json:"plan"`
	// Log is the file the server writes to.
	Log string `json:"log"`
	// Started is how long it took from start to healthy.
	Started time.Duration `json:"started_ns"`
	PID     int           `json:"pid"`

	root string
	cmd  *exec.Cmd
	done chan struct{}
	// logf is the log, open for reading its tail when the server exits:
	// the server writes it itself (its stdout and stderr are the file, no
	// pipe through this process), and a server without a log path writes
	// to an unlinked temporary file.
	logf      *os.File
	closeOnce sync.Once
}

// Progress is told what Start is waiting for.
type Progress func(msg string)

// Start runs the plan's runtime on a free loopback port with a random API
// key, writing its log to logPath (mode 0600), and waits until it is
// healthy. ctx bounds the wait, not the server: Stop ends it (and it dies
// with this process).
func Start(ctx context.Context, p Plan, logPath string, progress Progress) (*Server, error) {
	if progress == nil {
		progress = func(string) {}
	}
	if err := p.Model.Check(); err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	key := make([]byte, 24)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	logf, err := openLog(logPath)
	if err != nil {
		return nil, err
	}
	s := &Server{Key: hex.EncodeToString(key), Plan: p, Log: logPath, done: make(chan struct{}), logf: logf}
	s.root = "http://127.0.0.1:" + strconv.Itoa(port)
	s.URL = s.root + "/v1"
	args := append([]string{"--host", "127.0.0.1", "--port", strconv.Itoa(port)}, p.Args()...)
	cmd := exec.Command(p.Runtime.Path, args...)
	// The key travels in the environment (LLAMA_API_KEY), never on the
	// command line, which every local user can read in /proc.
	cmd.Env = append(os.Environ(), "LLAMA_API_KEY="+s.Key)
	// The log file itself, not a pipe that this process copies (and whose
	// 64 KiB tail it re-copied on every write once full): the server
	// writes its log as a hand-started one does, and nothing of it passes
	// through rehome.
	cmd.Stdout, cmd.Stderr = logf, logf
	Detach(cmd)
	s.cmd = cmd
	start := time.Now()
	progress(fmt.Sprintf("starting %s (%s, %s)", p.Model.Name, p.Runtime.Backend, strings.Join(p.Reasons, "; ")))
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", p.Runtime.Path, err)
	}
	s.PID = cmd.Process.Pid
	go func() { cmd.Wait(); close(s.done) }()
	wait, cancel := context.WithTimeout(ctx, healthWait)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	lastSaid := time.Now()
	for {
		select {
		case <-s.done:
			return nil, s.exitError()
		case <-wait.Done():
			s.Stop()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%s was not ready within %s; its log: %s", p.Model.Name, healthWait, logPath)
		case <-tick.C:
		}
		if s.healthy(wait) {
			s.Started = time.Since(start)
			progress(fmt.Sprintf("%s is ready (%.1f s)", p.Model.Name, s.Started.Seconds()))
			return s, nil
		}
		if time.Since(lastSaid) >= 2*time.Second {
			lastSaid = time.Now()
			progress(fmt.Sprintf("loading %s… %.0f s", p.Model.Name, time.Since(start).Seconds()))
		}
	}
}

func (s *Server) healthy(ctx context.Context) bool {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.root+"/health", nil)
	req.Header.Set("Authorization", "Bearer "+s.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// exitError says in words why the server ended before it was ready.
func (s *Server) exitError() error {
	log := s.logTail(64 << 10)
	low := strings.ToLower(log)
	name := s.Plan.Model.Name
	var why string
	switch {
	case strings.Contains(low, "out of memory") || strings.Contains(low, "failed to allocate") || strings.Contains(low, "erroroutofdevicememory") || strings.Contains(low, "cudamalloc failed"):
		why = fmt.Sprintf("it ran out of memory loading %s with %d layers on the GPU and a %d-token context: close other programs using the GPU, or ask for a smaller context", name, s.Plan.GPULayers, s.Plan.Context)
	case strings.Contains(low, "vk::") || strings.Contains(low, "vulkan") && (strings.Contains(low, "error") || strings.Contains(low, "failed")):
		why = "the Vulkan driver failed: install your GPU's Vulkan driver (mesa-vulkan-drivers for AMD and Intel, the NVIDIA driver's Vulkan part), or set REHOME_LLAMA_SERVER_VULKAN= (empty) to run on the CPU"
	case strings.Contains(low, "failed to load model") || strings.Contains(low, "error loading model"):
		why = fmt.Sprintf("llama.cpp could not load %s (%s): the file may be damaged or of an architecture this llama.cpp does not know", name, s.Plan.Model.Arch)
	default:
		why = "it exited: " + lastLines(log, 3)
	}
	code := ""
	if st := s.cmd.ProcessState; st != nil {
		code = " (" + st.String() + ")"
	}
	s.closeLog()
	return fmt.Errorf("%w%s: %s; its log: %s", ErrExited, code, why, s.Log)
}

// closeLog closes rehome's handle on the log once the server is gone.
func (s *Server) closeLog() { s.closeOnce.Do(func() { s.logf.Close() }) }

// Exited is closed when the server's process has ended.
func (s *Server) Exited() <-chan struct{} { return s.done }

// Stop ends the server: SIGTERM, then SIGKILL after five seconds.
func (s *Server) Stop() {
	defer s.closeLog()
	StopGroup(s.cmd.Process.Pid, s.done, 5*time.Second)
}

// openLog opens the server's log for it to write (mode 0600, truncated),
// and for rehome to read back; "" is an unlinked temporary file.
func openLog(path string) (*os.File, error) {
	f, err := logs.OpenChild(path, "rehome-llama-*.log")
	if err != nil && path != "" {
		return nil, fmt.Errorf("open the model server's log %s: %w", path, err)
	}
	return f, err
}

// logTail is the last max bytes of the server's log.
func (s *Server) logTail(max int64) string {
	fi, err := s.logf.Stat()
	if err != nil {
		return ""
	}
	off := fi.Size() - max
	if off < 0 {
		off = 0
	}
	b := make([]byte, fi.Size()-off)
	n, _ := s.logf.ReadAt(b, off)
	return string(b[:n])
}

func lastLines(s string, n int) string {
	lines := bytes.Split(bytes.TrimSpace([]byte(s)), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte(" / ")))
}
