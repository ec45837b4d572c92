package store

import (
	"fmt"
	"os"
	"path/filepath"

	"rehome/backend/ids"
)

// NewID returns a new record id (see package ids): 26 characters that
// sort by creation time.
func NewID() string { return ids.New() }

// DataDir returns rehome's data directory: $REHOME_HOME, else
// $XDG_DATA_HOME/rehome, else ~/.local/share/rehome.
func DataDir() (string, error) {
	if d := os.Getenv("REHOME_HOME"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "rehome"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the home directory: %w (set REHOME_HOME to a folder for rehome's data)", err)
	}
	return filepath.Join(home, ".local", "share", "rehome"), nil
}
