package door

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
)

// A frame is one byte of type, four of length (big-endian) and the
// payload.
const (
	// client → holder
	frameHello  = 'h' // Request as JSON, first
	frameStdin  = 'i' // bytes of stdin, answering frameRead
	frameEOF    = 'e' // stdin ended, answering frameRead
	frameSecret = 's' // what the user typed without echo, answering frameAskSecret
	frameCancel = 'c' // Ctrl-C or SIGTERM at the terminal
	// holder → client
	frameAccept    = 'a' // Accept as JSON, answering frameHello
	frameRefuse    = 'n' // why not, in words, answering frameHello; the end
	frameStdout    = '1' // bytes for stdout
	frameStderr    = '2' // bytes for stderr
	frameRead      = 'r' // read up to a uint32 of stdin
	frameAskSecret = 'p' // read a line from the terminal without echo
	frameExit      = 'x' // the exit code, an int32; the end
)

// maxFrame bounds a frame's payload; chunk is the most one stream frame
// carries (a bigger write is sent in several).
const (
	maxFrame = 1 << 20
	chunk    = 64 << 10
)

// Request is what a client asks the holder to run.
type Request struct {
	Version string            `json:"version"`
	Args    []string          `json:"args"`    // the command line after rehome's own flags
	Cwd     string            `json:"cwd"`     // the client's working folder: relative paths are read from it
	Env     map[string]string `json:"env"`     // the variables of Environ the client has set
	Verbose bool              `json:"verbose"` // -v
	// Whether the client's streams are terminals (the command words its
	// output and prompts for them).
	StdinTTY  bool `json:"stdin_tty"`
	StdoutTTY bool `json:"stdout_tty"`
	StderrTTY bool `json:"stderr_tty"`
}

// Accept is the holder's answer to a request it runs.
type Accept struct {
	PID     int    `json:"pid"`
	Holder  string `json:"holder"` // in words: "the window", "rehome serve"
	Version string `json:"version"`
}

// Environ lists the environment variables that change what a rehome
// command does. The client sends those it has; the holder runs every
// command in its own environment and says which of them differ.
var Environ = []string{
	"CONTAINER_HOST", "CONTAINER_SSHKEY", "REHOME_PODMAN_STORAGE", "REHOME_CACHE",
	"REHOME_PACKAGED_IMAGE_DIR", "REHOME_LLAMA_DIR", "REHOME_LLAMA_SERVER", "REHOME_LLAMA_SERVER_VULKAN",
	"OLLAMA_HOST", "REHOME_NVIDIA_SMI", "GHW_CHROOT", "XDG_DATA_HOME", "XDG_CACHE_HOME",
}

// wire reads and writes frames on one connection; writes from several
// goroutines are serialised.
type wire struct {
	c   net.Conn
	r   *bufio.Reader
	wmu sync.Mutex
}

func newWire(c net.Conn) *wire { return &wire{c: c, r: bufio.NewReader(c)} }

func (w *wire) send(t byte, p []byte) error {
	var h [5]byte
	h[0] = t
	binary.BigEndian.PutUint32(h[1:], uint32(len(p)))
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if _, err := w.c.Write(h[:]); err != nil {
		return err
	}
	_, err := w.c.Write(p)
	return err
}

func (w *wire) sendUint32(t byte, n uint32) error {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], n)
	return w.send(t, b[:])
}

func (w *wire) recv() (byte, []byte, error) {
	var h [5]byte
	if _, err := io.ReadFull(w.r, h[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(h[1:])
	if n > maxFrame {
		return 0, nil, fmt.Errorf("%w: a frame of %d bytes", ErrProtocol, n)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(w.r, p); err != nil {
		return 0, nil, err
	}
	return h[0], p, nil
}

func uint32Of(p []byte) (uint32, error) {
	if len(p) != 4 {
		return 0, fmt.Errorf("%w: want 4 bytes, got %d", ErrProtocol, len(p))
	}
	return binary.BigEndian.Uint32(p), nil
}
