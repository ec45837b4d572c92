package ids

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"sync"
	"time"
)

// crockford is Crockford's base32 alphabet, lower case; its byte order
// matches its character order, so encoded ids sort like their bytes.
var crockford = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

var (
	mu       sync.Mutex
	lastNano int64
)

// New returns a new id: 26 characters that sort by creation time
// (nanoseconds, strictly increasing within a process) then by 8 random
// bytes.
func New() string {
	mu.Lock()
	n := time.Now().UnixNano()
	if n <= lastNano {
		n = lastNano + 1
	}
	lastNano = n
	mu.Unlock()
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(n))
	_, _ = rand.Read(b[8:])
	return crockford.EncodeToString(b[:])
}
