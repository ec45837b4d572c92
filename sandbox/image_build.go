package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/containers/podman/v4/pkg/bindings/images"

	recipe "rehome/sandbox/recipe"
)

// BuildReport describes a finished image build.
type BuildReport struct {
	Image        string        `json:"image"`
	RootfsBytes  int64         `json:"rootfs_bytes"`
	ImageBytes   int64         `json:"image_bytes"`
	Archive      string        `json:"archive"`
	ArchiveBytes int64         `json:"archive_bytes"`
	BuildTime    time.Duration `json:"build_ns"`
	ImportTime   time.Duration `json:"import_ns"`
	SaveTime     time.Duration `json:"save_ns"`
}

// BuildImage builds the image from the embedded recipe: mmdebstrap makes
// the root file system from Debian packages (no registry), the service
// imports it under ImageRef, and the compressed archive is saved in the
// cache folder for the next load. progress receives the build's output
// lines.
func (e *Engine) BuildImage(ctx context.Context, progress func(string)) (*BuildReport, error) {
	if progress == nil {
		progress = func(string) {}
	}
	if _, err := exec.LookPath("mmdebstrap"); err != nil {
		return nil, errors.New("building the sandbox image needs mmdebstrap: install it with `sudo apt-get install mmdebstrap` (or load a prebuilt archive with `rehome sandbox image load FILE`)")
	}
	work, err := os.MkdirTemp("", "rehome-image-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	script, err := recipe.WriteTo(work)
	if err != nil {
		return nil, err
	}
	rootfs := filepath.Join(work, "rootfs.tar")
	rep := &BuildReport{Image: e.image, Archive: filepath.Join(e.cacheDir(), ArchiveName())}

	t0 := time.Now()
	if err := e.runRecipe(ctx, script, rootfs, work, progress); err != nil {
		return nil, err
	}
	rep.BuildTime = time.Since(t0)
	if fi, err := os.Stat(rootfs); err == nil {
		rep.RootfsBytes = fi.Size()
	}

	t1 := time.Now()
	progress("importing into Podman as " + e.image)
	f, err := os.Open(rootfs)
	if err != nil {
		return nil, err
	}
	_, err = images.Import(e.api(ctx), bufio.NewReaderSize(f, 1<<20), new(images.ImportOptions).
		WithReference(e.image).WithChanges(imageChanges).WithMessage("rehome sandbox, recipe "+recipe.Digest()))
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("import the sandbox image: %w", explain(err))
	}
	rep.ImportTime = time.Since(t1)
	os.Remove(rootfs)

	t2 := time.Now()
	progress("saving " + rep.Archive)
	if err := e.SaveImage(ctx, rep.Archive); err != nil {
		return nil, err
	}
	rep.SaveTime = time.Since(t2)
	if fi, err := os.Stat(rep.Archive); err == nil {
		rep.ArchiveBytes = fi.Size()
	}
	if st, err := e.ImageStatus(ctx); err == nil {
		rep.ImageBytes = st.Size
	}
	return rep, nil
}

// runRecipe runs the image's recipe script, which writes the root file
// system to rootfs, each line of its output to progress; a failure says
// its last 30 lines.
func (e *Engine) runRecipe(ctx context.Context, script, rootfs, work string, progress func(string)) error {
	cmd := exec.CommandContext(ctx, "/bin/sh", script, rootfs)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "REHOME_APT_CACHE="+filepath.Join(e.cacheDir(), "apt"))
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var tail []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			tail = append(tail, line)
			if len(tail) > 30 {
				tail = tail[1:]
			}
			progress(line)
		}
		io.Copy(io.Discard, pr)
	}()
	err := cmd.Run()
	pw.Close()
	<-done
	if err != nil {
		return fmt.Errorf("build the sandbox image's root file system: %v\n%s", err, strings.Join(tail, "\n"))
	}
	return nil
}

// shellQuote quotes s for the recipe's shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
