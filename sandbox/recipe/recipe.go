package recipe

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

//go:embed build-rootfs.sh packages.txt stubs.txt runner.py prelude.py kernel.py
var files embed.FS

// fileNames returns the names of the recipe's files, sorted.
func fileNames() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// seccompEntry is the name the seccomp profile (SeccompProfile, which goes
// into the image as its SeccompLabel) takes in Digest, after the files.
const seccompEntry = "seccomp.json"

// Digest is the sha256 of the recipe: each file's name and content, in name
// order, then the seccomp profile the image carries. It changes whenever
// anything that goes into the image changes.
func Digest() string { return digestWith(SeccompProfile()) }

func digestWith(profile []byte) string {
	h := sha256.New()
	for _, name := range fileNames() {
		data, err := files.ReadFile(name)
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
	}
	fmt.Fprintf(h, "%s\x00%d\x00", seccompEntry, len(profile))
	h.Write(profile)
	return hex.EncodeToString(h.Sum(nil))
}

// Tag is the image tag of this recipe: the first 12 hex digits of Digest.
func Tag() string { return Digest()[:12] }

// WriteTo writes the recipe into dir (which must exist), the build script
// executable, and returns the script's path.
func WriteTo(dir string) (string, error) {
	for _, name := range fileNames() {
		data, err := files.ReadFile(name)
		if err != nil {
			return "", err
		}
		mode := os.FileMode(0o644)
		if filepath.Ext(name) == ".sh" {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, mode); err != nil {
			return "", fmt.Errorf("write the image recipe: %w", err)
		}
	}
	return filepath.Join(dir, "build-rootfs.sh"), nil
}
