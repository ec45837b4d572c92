package window

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"syscall"
	"time"
)

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
