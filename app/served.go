package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// What the file server of the window and of the bridge may serve
// (GET /api/file): run outputs, uploads, backups and session files only.

// ServedFile checks that path is a regular file inside the runs or
// uploads folder of the data directory (symbolic links resolved), and
// returns its resolved path.
func ServedFile(a *App, path string) (string, error) {
	refuse := fmt.Errorf("%s is not a run output, an upload or a backup of rehome", filepath.Base(path))
	if path == "" || !filepath.IsAbs(path) {
		return "", refuse
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s is gone: run the code again to recreate it", filepath.Base(path))
		}
		return "", err
	}
	data, err := filepath.EvalSymlinks(a.cfg.DataDir)
	if err != nil {
		return "", err
	}
	ok := false
	for _, dir := range []string{RunsDir, UploadsDir, BackupsDir, SessionsDir} {
		root := filepath.Join(data, dir) + string(filepath.Separator)
		if strings.HasPrefix(real, root) {
			ok = true
		}
	}
	if !ok {
		return "", refuse
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", refuse
	}
	return real, nil
}
