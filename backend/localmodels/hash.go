package localmodels

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"os"
)

type hasher struct{ h hash.Hash }

func newHasher() *hasher                      { return &hasher{h: sha256.New()} }
func (h *hasher) Write(p []byte) (int, error) { return h.h.Write(p) }
func (h *hasher) sum() string                 { return hex.EncodeToString(h.h.Sum(nil)) }

// ctxReader stops a long copy or hash when ctx ends and reports progress
// every 64 MiB.
type ctxReader struct {
	ctx      context.Context
	r        io.Reader
	done     int64
	next     int64
	total    int64
	progress func(done, total int64)
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.done += int64(n)
	if c.done >= c.next || err == io.EOF {
		c.progress(c.done, c.total)
		c.next = c.done + 64<<20
	}
	return n, err
}

func hashCtx(ctx context.Context, path string, size int64, progress func(int64, int64)) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := newHasher()
	if _, err := io.Copy(h, &ctxReader{ctx: ctx, r: f, total: size, progress: progress}); err != nil {
		return "", err
	}
	return h.sum(), nil
}
