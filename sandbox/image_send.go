package sandbox

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/containers/podman/v4/pkg/bindings/images"

	"rehome/backend/bytesize"
)

// The image over the connection: LoadImage streams the archive to the
// service (Podman's REST load reads it from the request, never from a
// path), so it installs the image on a team host as on this machine. What
// the service stored is checked against what was sent: the image's ID is
// the SHA-256 of its config, and rehome computes that SHA-256 from the
// very bytes it sent (archiveSum), so a service that stored anything else
// — a damaged transfer, another image under the same name — is refused.

// archiveSum reads a docker-archive tar stream as it is sent and finds
// the SHA-256 of the image config its manifest names.
type archiveSum struct {
	pw   *io.PipeWriter
	done chan struct{}
	// config is manifest.json's Config; sums holds each small JSON
	// entry's SHA-256 by name.
	config string
	sums   map[string]string
	err    error
}

func newArchiveSum() *archiveSum {
	pr, pw := io.Pipe()
	a := &archiveSum{pw: pw, done: make(chan struct{}), sums: map[string]string{}}
	go func() {
		defer close(a.done)
		tr := tar.NewReader(pr)
		for {
			hdr, err := tr.Next()
			if err != nil {
				if err != io.EOF {
					a.err = err
				}
				break
			}
			name := path.Clean(hdr.Name)
			switch {
			case name == "manifest.json":
				var m []struct{ Config string }
				if err := json.NewDecoder(io.LimitReader(tr, 1<<20)).Decode(&m); err == nil && len(m) == 1 {
					a.config = path.Clean(m[0].Config)
				}
			case strings.HasSuffix(name, ".json") && hdr.Size < 4<<20:
				h := sha256.New()
				io.Copy(h, tr)
				a.sums[name] = hex.EncodeToString(h.Sum(nil))
			}
		}
		io.Copy(io.Discard, pr)
	}()
	return a
}

func (a *archiveSum) Write(p []byte) (int, error) {
	a.pw.Write(p) // the reader drains everything it is given
	return len(p), nil
}

// configSum is the SHA-256 of the archive's image config, once the whole
// archive has been written.
func (a *archiveSum) configSum() (string, error) {
	a.pw.Close()
	<-a.done
	if a.err != nil {
		return "", fmt.Errorf("read the image archive: %w", a.err)
	}
	sum, ok := a.sums[a.config]
	if a.config == "" || !ok {
		return "", fmt.Errorf("the image archive names no image config (manifest.json): it is not a docker-archive as `rehome sandbox image save` writes")
	}
	return sum, nil
}

// checkLoaded compares the image the service now holds with the config
// SHA-256 of what was sent.
func (e *Engine) checkLoaded(ctx context.Context, a *archiveSum, file string) error {
	want, err := a.configSum()
	if err != nil {
		return err
	}
	img, err := images.GetImage(e.api(ctx), e.image, nil)
	if err != nil {
		return fmt.Errorf("look for the loaded image: %w", explain(err))
	}
	got := strings.TrimPrefix(img.ID, "sha256:")
	if got != want {
		return fmt.Errorf("%w: %s on %s has ID %s, but the archive sent (%s) holds the image %s: load it again with `rehome sandbox image load %s`",
			errArchiveDamaged, e.image, e.serviceName(), short(got), file, short(want), shellQuote(file))
	}
	return e.checkSeccompLabel(img.Labels, "rehome sandbox image build --force")
}

func short(id string) string { return id[:min(len(id), 12)] }

// imageOnto reports the progress of an image load onto a service that is
// not this machine's own ("loading the sandbox image onto HOST: 120 MiB of
// 180 MiB"), to progress, every 16 MiB.
func (e *Engine) imageOnto(ctx context.Context, progress func(string)) context.Context {
	if progress == nil || !e.Host().FilesTravel {
		return ctx
	}
	outer := loadProgressOf(ctx)
	var last int64 = -1
	return WithLoadProgress(ctx, func(stage string, done, total int64) {
		outer(stage, done, total)
		if stage != "load" || (done-last < 16*MiB && done < total) {
			return
		}
		last = done
		progress(fmt.Sprintf("loading the sandbox image onto %s: %s of %s", e.serviceName(), bytesize.Format(done), bytesize.Format(total)))
	})
}
