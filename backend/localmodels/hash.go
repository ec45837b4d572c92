package localmodels

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"os"

	"rehome/backend/progressio"
)

type hasher struct{ h hash.Hash }

func newHasher() *hasher                      { return &hasher{h: sha256.New()} }
func (h *hasher) Write(p []byte) (int, error) { return h.h.Write(p) }
func (h *hasher) sum() string                 { return hex.EncodeToString(h.h.Sum(nil)) }

func hashCtx(ctx context.Context, path string, size int64, progress func(int64, int64)) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := newHasher()
	if _, err := io.Copy(h, &progressio.Reader{Ctx: ctx, R: f, Total: size, Progress: progress}); err != nil {
		return "", err
	}
	return h.sum(), nil
}
