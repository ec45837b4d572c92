package logs

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"gopkg.in/natefinch/lumberjack.v2"
)

// FileName is the log file's name inside the data directory.
const FileName = "rehome.log"

// Options choose where logs go.
type Options struct {
	Dir     string    // data directory; "" writes no file
	Verbose bool      // also write debug-level text to Stderr
	Stderr  io.Writer // defaults to os.Stderr
}

// New returns a logger and a function that flushes and closes its file.
// A data directory or log file that cannot be written does not stop
// rehome: the logger then writes to stderr instead and says why, at the
// start or at the first write that fails.
func New(o Options) (*slog.Logger, func() error) {
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	var handlers []slog.Handler
	closeFn := func() error { return nil }
	var fileErr error
	if o.Dir != "" {
		path := filepath.Join(o.Dir, FileName)
		fileErr = os.MkdirAll(o.Dir, 0o700)
		if fileErr == nil {
			// lumberjack opens the file at the first write; try it now, so
			// that a file that cannot be written is known from the start.
			var f *os.File
			if f, fileErr = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); fileErr == nil {
				f.Close()
			}
		}
		if fileErr == nil {
			lj := &lumberjack.Logger{
				Filename:   path,
				MaxSize:    5, // MiB
				MaxBackups: 3,
				Compress:   true,
			}
			w := &fallback{file: lj, stderr: o.Stderr}
			handlers = append(handlers, slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
			closeFn = lj.Close
		}
	}
	switch {
	case o.Verbose:
		handlers = append(handlers, slog.NewTextHandler(o.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	case fileErr != nil:
		handlers = append(handlers, slog.NewJSONHandler(o.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	l := slog.New(slog.NewMultiHandler(handlers...))
	if fileErr != nil {
		slog.New(slog.NewTextHandler(o.Stderr, nil)).Warn("cannot write the log file; logging to stderr only", "dir", o.Dir, "err", fileErr)
	}
	return l, closeFn
}

// fallback writes log lines to the file, and to stderr when the file
// cannot take them (a full disk, a folder gone read-only), saying so once.
type fallback struct {
	mu     sync.Mutex
	file   io.Writer
	stderr io.Writer
	failed bool
}

func (f *fallback) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.file.Write(p); err == nil {
		f.failed = false
		return len(p), nil
	} else if !f.failed {
		f.failed = true
		fmt.Fprintf(f.stderr, "rehome: cannot write the log file (%v); logging to stderr until it can\n", err)
	}
	return f.stderr.Write(p)
}
