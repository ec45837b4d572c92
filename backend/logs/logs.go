// Package logs sets up rehome's structured logging: JSON lines to a
// rotating file in the data directory, and text to stderr when asked.
package logs

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"

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
// A data directory that cannot be written does not stop rehome: the
// logger then writes to stderr alone and says why.
func New(o Options) (*slog.Logger, func() error) {
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	var handlers []slog.Handler
	closeFn := func() error { return nil }
	var fileErr error
	if o.Dir != "" {
		if err := os.MkdirAll(o.Dir, 0o700); err != nil {
			fileErr = err
		} else {
			lj := &lumberjack.Logger{
				Filename:   filepath.Join(o.Dir, FileName),
				MaxSize:    5, // MiB
				MaxBackups: 3,
				Compress:   true,
			}
			handlers = append(handlers, slog.NewJSONHandler(lj, &slog.HandlerOptions{Level: slog.LevelInfo}))
			closeFn = lj.Close
		}
	}
	if o.Verbose {
		handlers = append(handlers, slog.NewTextHandler(o.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	l := slog.New(slog.NewMultiHandler(handlers...))
	if fileErr != nil {
		slog.New(slog.NewTextHandler(o.Stderr, nil)).Warn("cannot write the log file; logging to stderr only", "dir", o.Dir, "err", fileErr)
	}
	return l, closeFn
}
