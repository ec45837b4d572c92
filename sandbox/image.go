package sandbox

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/containers/podman/v4/pkg/bindings/images"

	"rehome/backend/atomicfile"
	"rehome/backend/bytesize"
	recipe "rehome/sandbox/recipe"
)

// imageRepo is the repository of the sandbox image; the tag is the recipe's
// digest, so a rehome built from another recipe never runs a stale image.
const imageRepo = "localhost/rehome-sandbox"

// ImageRef is the image this build of rehome runs.
func ImageRef() string { return imageRepo + ":" + recipe.Tag() }

// imageChanges are the Dockerfile-style settings given to the imported
// root file system.
var imageChanges = []string{
	"USER sandbox",
	"WORKDIR /mnt/data",
	"ENV PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8",
	`CMD ["/usr/bin/python3"]`,
	"LABEL io.rehome.recipe=" + recipe.Digest(),
	// The seccomp profile travels in the image (seccomp.go).
	"LABEL " + recipe.SeccompLabel + "=" + string(recipe.SeccompProfile()),
}

// CacheDir is where rehome keeps the image archive, the apt download cache
// of image builds and runtime probes: $REHOME_CACHE, else
// /var/cache/rehome for root, else $XDG_CACHE_HOME/rehome or
// ~/.cache/rehome.
func CacheDir() string {
	if d := os.Getenv("REHOME_CACHE"); d != "" {
		return d
	}
	if os.Geteuid() == 0 {
		return "/var/cache/rehome"
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "rehome")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".cache", "rehome")
	}
	return filepath.Join(os.TempDir(), "rehome-cache")
}

// ArchiveName is the file name of this recipe's image archive.
func ArchiveName() string { return "rehome-sandbox-" + recipe.Tag() + ".tar.gz" }

// sharedArchiveDirs are searched, after the engine's own cache folder, for
// an archive of this recipe's image: the cache a root build (`make run`,
// `make test`) leaves readable by everyone, and the folder a package ships
// one in. Rootless Podman keeps images per user, so a normal user's first
// run loads the image from one of these instead of building it again.
var sharedArchiveDirs = []string{"/var/cache/rehome", packagedImageDir}

// findArchive returns the first readable archive of this recipe's image:
// in the engine's cache folder, then (unless the engine was given a cache
// folder of its own) in sharedArchiveDirs. Without one it returns the path
// in the engine's cache folder, where a build saves it, and false.
func (e *Engine) findArchive() (string, bool) {
	dirs := []string{e.cacheDir()}
	if e.opts.CacheDir == "" {
		for _, d := range sharedArchiveDirs {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, ArchiveName())
		if f, err := os.Open(p); err == nil {
			fi, err := f.Stat()
			f.Close()
			if err == nil && fi.Mode().IsRegular() {
				return p, true
			}
		}
	}
	return filepath.Join(e.cacheDir(), ArchiveName()), false
}

// ImageStatus says whether the image this rehome expects is ready.
type ImageStatus struct {
	Image  string `json:"image"`
	Digest string `json:"recipe_digest"`
	// Present: in the Podman service's storage.
	Present bool  `json:"present"`
	Size    int64 `json:"size_bytes,omitempty"`
	// Archive is the cached archive's path; ArchivePresent whether it exists.
	Archive        string `json:"archive"`
	ArchivePresent bool   `json:"archive_present"`
	ArchiveSize    int64  `json:"archive_size_bytes,omitempty"`
	// Stale lists sandbox images of other recipes still in storage.
	Stale []string `json:"stale,omitempty"`
	// Fix is the command that makes the image ready, when it is not.
	Fix string `json:"fix,omitempty"`
	// Problem says why an image in storage is not ready: it lacks
	// rehome's seccomp profile (seccomp.go).
	Problem string `json:"problem,omitempty"`
	// State is the one verdict `rehome sandbox image status`, `rehome
	// doctor` and the first-run checklist all give: "ready", "loads on
	// first use" (an archive of this recipe is at hand and the first run
	// loads it, as EnsureImage does) or "missing".
	State string `json:"state"`
}

// The states of ImageStatus.State.
const (
	imageReady           = "ready"
	imageLoadsOnFirstUse = "loads on first use"
	imageMissing         = "missing"
)

// Ready reports whether a run can start without a build: the image is in
// storage or loads by itself on first use.
func (st ImageStatus) Ready() bool { return st.State == imageReady || st.State == imageLoadsOnFirstUse }

// Summary is State in words, with the size or the archive.
func (st ImageStatus) Summary() string {
	switch st.State {
	case imageReady:
		if st.Size > 0 {
			return "ready (" + bytesize.Format(st.Size) + ")"
		}
		return "ready"
	case imageLoadsOnFirstUse:
		return "loads on first use from " + st.Archive
	}
	if st.Problem != "" {
		return st.Problem
	}
	return "missing"
}

// ImageStatus reports on the image and its cached archive.
func (e *Engine) ImageStatus(ctx context.Context) (ImageStatus, error) {
	st := ImageStatus{Image: e.image, Digest: recipe.Digest()}
	st.Archive, st.ArchivePresent = e.findArchive()
	if fi, err := os.Stat(st.Archive); err == nil && st.ArchivePresent {
		st.ArchiveSize = fi.Size()
	}
	list, err := images.List(e.api(ctx), new(images.ListOptions).WithFilters(map[string][]string{"reference": {imageRepo}}))
	if err != nil {
		return st, fmt.Errorf("list images: %w", explain(err))
	}
	var seccompErr error
	for _, im := range list {
		for _, name := range im.RepoTags {
			if name == e.image {
				st.Present, st.Size = true, im.Size
				seccompErr = e.checkSeccompLabel(im.Labels, e.reloadCommand())
			} else if strings.HasPrefix(name, imageRepo+":") {
				st.Stale = append(st.Stale, name)
			}
		}
	}
	if p := PackagedImageArchive(); !st.ArchivePresent && p != "" && e.opts.Image == "" {
		st.Archive, st.ArchivePresent = p, true
	}
	switch {
	case st.Present && seccompErr != nil:
		// Runs refuse it (EnsureImage): not ready.
		st.State, st.Fix, st.Problem = imageMissing, e.reloadCommand(), seccompErr.Error()
	case st.Present:
		st.State = imageReady
	case st.ArchivePresent && e.opts.Image == "":
		st.State = imageLoadsOnFirstUse
		st.Fix = "rehome sandbox image load " + shellQuote(st.Archive)
	case st.ArchivePresent:
		st.State = imageMissing
		st.Fix = "rehome sandbox image load " + shellQuote(st.Archive)
	default:
		st.State = imageMissing
		st.Fix = "rehome sandbox image build (or, on an air-gapped machine, rehome sandbox image load FILE with an archive built elsewhere)"
	}
	return st, nil
}

// EnsureImage makes the image present: already there, or loaded from a
// cached or shipped archive of the same recipe (see findArchive; progress
// tells of it), or an error wrapping
// ErrImageMissing that names the command that fixes it.
func (e *Engine) EnsureImage(ctx context.Context, progress func(string)) error {
	img, err := images.GetImage(e.api(ctx), e.image, nil)
	if err == nil {
		return e.checkSeccompLabel(img.Labels, e.reloadCommand())
	}
	if !isNotFound(err) {
		return fmt.Errorf("look for the sandbox image: %w", explain(err))
	}
	if e.opts.Image != "" {
		return fmt.Errorf("%w: %s is not in Podman's storage", ErrImageMissing, e.image)
	}
	if archive, ok := e.findArchive(); ok {
		if progress != nil {
			if e.Host().FilesTravel {
				progress(fmt.Sprintf("loading the sandbox image onto %s from %s (once)", e.serviceName(), archive))
			} else {
				progress("loading the sandbox image from " + archive)
			}
		}
		_, err := e.LoadImage(e.imageOnto(ctx, progress), archive)
		return err
	}
	return fmt.Errorf("%w (%s): build it with `rehome sandbox image build` (needs a Debian mirror, about two minutes), or on an air-gapped machine load an archive built elsewhere with `rehome sandbox image load FILE`", ErrImageMissing, e.image)
}

// LoadImage loads an image archive (as written by SaveImage, or by
// `podman save`, gzip-compressed or not) and checks that it holds the image
// this rehome expects. It returns the names loaded.
func (e *Engine) LoadImage(ctx context.Context, file string) ([]string, error) {
	// A shipped archive has its .sha256 beside it: check it first.
	if _, err := verifyArchive(ctx, file); err != nil {
		return nil, err
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("open the image archive: %w", err)
	}
	defer f.Close()
	var r io.Reader = bufio.NewReaderSize(loadReader(ctx, f), 1<<20)
	// Decompress here: the service then reads a plain archive whatever
	// compression it supports.
	br := r.(*bufio.Reader)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("read the image archive %s: %w", file, err)
		}
		defer zr.Close()
		r = zr
	}
	sum := newArchiveSum()
	rep, err := images.Load(e.api(ctx), io.TeeReader(r, sum))
	if err != nil {
		sum.configSum()
		return nil, fmt.Errorf("load the image archive %s: %w", file, explain(err))
	}
	names := rep.Names
	for _, n := range names {
		if n == e.image || strings.TrimPrefix(n, "localhost/") == strings.TrimPrefix(e.image, "localhost/") {
			return names, e.checkLoaded(ctx, sum, file)
		}
	}
	sum.configSum()
	if ok, _ := images.Exists(e.api(ctx), e.image, nil); ok {
		// The archive held another image; this rehome's is there already.
		return names, nil
	}
	return names, fmt.Errorf("%s holds %s, but this rehome needs %s (the image of its recipe): build it with `rehome sandbox image build` or load the archive made by the same rehome version", file, strings.Join(names, ", "), e.image)
}

// SaveImage writes the image as a gzip-compressed docker-archive that
// `rehome sandbox image load` (or `podman load -i`) reads on any machine,
// atomically: the file appears under its name only once complete.
func (e *Engine) SaveImage(ctx context.Context, file string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("create the archive's folder: %w", err)
	}
	err := atomicfile.Write(file, 0o644, func(w io.Writer) error {
		zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		if err := images.Export(e.api(ctx), []string{e.image}, zw, new(images.ExportOptions).WithFormat("docker-archive")); err != nil {
			return err
		}
		return zw.Close()
	})
	if err != nil {
		return fmt.Errorf("save the image archive: %w", explain(err))
	}
	return nil
}

// RemoveStale removes sandbox images of other recipes (tagged or left
// untagged by a rebuild; rehome's images carry the io.rehome.recipe label)
// and their archives in the cache folder. It returns what it removed.
func (e *Engine) RemoveStale(ctx context.Context) ([]string, error) {
	api := e.api(ctx)
	list, err := images.List(api, new(images.ListOptions).WithAll(true).
		WithFilters(map[string][]string{"label": {"io.rehome.recipe"}}))
	if err != nil {
		return nil, fmt.Errorf("list images: %w", explain(err))
	}
	var removed []string
	for _, im := range list {
		if slices.Contains(im.RepoTags, e.image) || im.Labels["io.rehome.recipe"] == recipe.Digest() {
			continue
		}
		name := im.ID
		if len(im.RepoTags) > 0 {
			name = im.RepoTags[0]
		}
		if _, errs := images.Remove(api, []string{im.ID}, new(images.RemoveOptions).WithForce(true)); len(errs) == 0 {
			removed = append(removed, name)
		}
	}
	keep := ArchiveName()
	matches, _ := filepath.Glob(filepath.Join(e.cacheDir(), "rehome-sandbox-*.tar.gz"))
	for _, m := range matches {
		if filepath.Base(m) != keep && os.Remove(m) == nil {
			removed = append(removed, m)
		}
	}
	return removed, nil
}
