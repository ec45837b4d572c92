package store

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// crockford is Crockford's base32 alphabet, lower case; its byte order
// matches its character order, so encoded ids sort like their bytes.
var crockford = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

var idMu sync.Mutex
var lastNano int64

// NewID returns a new record id: 26 characters that sort by creation time
// (nanoseconds, strictly increasing within a process) then by 8 random bytes.
func NewID() string {
	idMu.Lock()
	n := time.Now().UnixNano()
	if n <= lastNano {
		n = lastNano + 1
	}
	lastNano = n
	idMu.Unlock()
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(n))
	_, _ = rand.Read(b[8:])
	return crockford.EncodeToString(b[:])
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
