package ids

import (
	"crypto/sha256"
	"encoding/binary"
	"time"
)

// At returns the id of a record made elsewhere at t and known there as
// key (an imported conversation): the same t and key give the same id,
// so importing it again finds the same record, and it sorts among
// rehome's own records by t.
func At(t time.Time, key string) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(max(t.UnixNano(), 0)))
	sum := sha256.Sum256([]byte(key))
	copy(b[8:], sum[:8])
	return crockford.EncodeToString(b[:])
}
