package llamatest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rehome/internal/testsupport/tinymodel"
)

// Alias is the model's name on the server (/v1/models, "model" of each chunk).
const Alias = "rehome-tiny"

// Server is a running llama-server.
type Server struct {
	// URL is the base URL an OpenAI client takes: http://127.0.0.1:PORT/v1.
	URL string
	// Root is the server without /v1 (its /health, /props).
	Root string
	// Model is the GGUF file it serves.
	Model string
	// Started is how long it took from start to a healthy /health.
	Started time.Duration
	cmd     *exec.Cmd
	log     *syncBuffer
	done    chan struct{}
}

// Log is what the server printed so far.
func (s *Server) Log() string { return s.log.String() }

// Binary returns the llama-server to run: $REHOME_LLAMA_SERVER, else the
// cached build of build/llm/llama-server.sh (asked with --find, which
// never builds). The folder beside it holds the vocabulary and the chat
// template the tiny model is made from.
func Binary() (string, error) {
	if p := os.Getenv("REHOME_LLAMA_SERVER"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("REHOME_LLAMA_SERVER=%s: %w", p, err)
		}
		return p, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	var stderr bytes.Buffer
	cmd := exec.Command("bash", filepath.Join(root, "build", "llm", "llama-server.sh"), "--find")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s", strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// repoRoot is the folder of go.mod above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}

// Need returns the binary, or skips t with the reason (fails it when
// REHOME_REQUIRE_LLAMA is set).
func Need(t testing.TB) string {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		if os.Getenv("REHOME_REQUIRE_LLAMA") != "" {
			t.Fatalf("REHOME_REQUIRE_LLAMA is set but there is no llama-server: %v", err)
		}
		t.Skipf("skipped: no llama-server (%v); `make llama` builds it, or set REHOME_LLAMA_SERVER", err)
	}
	return bin
}

// Model writes the tiny model for script into dir and returns its path.
func Model(t testing.TB, bin, dir string, script tinymodel.Script) string {
	t.Helper()
	m, err := tinymodel.Build(filepath.Dir(bin), script)
	if err != nil {
		t.Fatalf("make the tiny model: %v", err)
	}
	path := filepath.Join(dir, "tiny.gguf")
	if err := m.WriteFile(path); err != nil {
		t.Fatalf("write the tiny model: %v", err)
	}
	return path
}

// Start starts llama-server with the tiny model for script (CPU, one
// thread, one slot, a small context, --jinja so the chat template's tool
// calls are parsed), waits for /health, and stops it when t ends. extra
// arguments are appended. It skips or fails t as Need does.
func Start(t testing.TB, script tinymodel.Script, extra ...string) *Server {
	t.Helper()
	bin := Need(t)
	model := Model(t, bin, t.TempDir(), script)
	s, err := StartModel(bin, model, extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("llama-server's log:\n%s", tail(s.Log(), 6000))
		}
	})
	return s
}

// StartModel starts bin serving model on a free loopback port and waits
// (up to five minutes: a real model takes a while to load) until it is
// healthy.
func StartModel(bin, model string, extra ...string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := []string{"-m", model, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--jinja", "-c", "4096", "--threads", "1", "--threads-batch", "1", "-np", "1", "--no-webui", "--alias", Alias}
	args = append(args, extra...)
	cmd := exec.Command(bin, args...)
	log := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	root := "http://127.0.0.1:" + strconv.Itoa(port)
	s := &Server{URL: root + "/v1", Root: root, Model: model, cmd: cmd, log: log, done: make(chan struct{})}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { cmd.Wait(); close(s.done) }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for {
		select {
		case <-s.done:
			return nil, fmt.Errorf("llama-server exited before it was healthy (%s):\n%s", cmd.ProcessState, tail(log.String(), 6000))
		case <-ctx.Done():
			s.Stop()
			return nil, fmt.Errorf("llama-server was not healthy within five minutes:\n%s", tail(log.String(), 6000))
		case <-time.After(50 * time.Millisecond):
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, root+"/health", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				s.Started = time.Since(start)
				return s, nil
			}
		}
	}
}

// Stop ends the server (SIGTERM, then SIGKILL after five seconds).
func (s *Server) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
