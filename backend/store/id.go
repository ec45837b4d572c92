package store

import (
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"rehome/backend/ids"
)

// crockford is Crockford's base32 alphabet, lower case; its byte order
// matches its character order, so encoded ids sort like their bytes.
var crockford = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// NewID returns a new record id (see package ids): 26 characters that
// sort by creation time.
func NewID() string { return ids.New() }

// IDTime returns the creation time encoded in an id from NewID.
func IDTime(id string) (time.Time, bool) {
	b, err := crockford.DecodeString(id)
	if err != nil || len(b) != 16 {
		return time.Time{}, false
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(b[:8]))), true
}

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
