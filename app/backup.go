package app

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// BackupInfo says where a backup went.
type BackupInfo struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

// BackupDatabase writes a hot copy of the database, taken while rehome
// keeps running, to backups/ in the data folder. (The `rehome backup`
// command cannot reach the database while a window holds it; this can.)
func (svc *SystemService) BackupDatabase() (BackupInfo, error) {
	a := svc.app
	if err := a.ready(); err != nil {
		return BackupInfo{}, err
	}
	dir := filepath.Join(a.cfg.DataDir, BackupsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return BackupInfo{}, fmt.Errorf("create %s: %w", dir, err)
	}
	// A name of its own: two backups in one millisecond get two files.
	path, n, err := a.core.BackupNew(dir, "rehome-"+time.Now().UTC().Format("20060102-150405.000"))
	if err != nil {
		return BackupInfo{}, err
	}
	a.log.Info("backup", "path", path, "bytes", n)
	return BackupInfo{Path: path, Bytes: n}, nil
}
