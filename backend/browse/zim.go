package browse

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"rehome/backend/progressio"
)

// zimMagic is the first four bytes of every ZIM file (72173914, little
// endian), per openzim's format (https://wiki.openzim.org/wiki/ZIM_file_format).
const zimMagic = 0x044D495A

// zimHeaderSize is the fixed header's length, to checksumPos's end.
const zimHeaderSize = 80

// Header is what a ZIM file's fixed header says.
type Header struct {
	Major, Minor uint16
	UUID         string
	Entries      uint32
	Clusters     uint32
	// ChecksumPos is where the 16-byte MD5 of every byte before it lies:
	// the file's length is ChecksumPos+16.
	ChecksumPos uint64
}

// ReadHeader reads and checks path's fixed header: the magic number, a
// major version libzim reads (5 or 6), a checksum position inside a file
// that is long enough to hold it.
func ReadHeader(path string) (Header, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Header{}, 0, err
	}
	if !fi.Mode().IsRegular() {
		return Header{}, 0, fmt.Errorf("%w: %s is not a regular file", ErrNotZIM, path)
	}
	b := make([]byte, zimHeaderSize)
	if _, err := io.ReadFull(f, b); err != nil {
		return Header{}, 0, fmt.Errorf("%w: %s is %d bytes, shorter than a ZIM header (download it again from library.kiwix.org)", ErrNotZIM, path, fi.Size())
	}
	le := binary.LittleEndian
	if le.Uint32(b) != zimMagic {
		return Header{}, 0, fmt.Errorf("%w: %s does not start with ZIM's magic number (%s); Kiwix libraries are .zim files from library.kiwix.org", ErrNotZIM, path, kindOf(b))
	}
	h := Header{Major: le.Uint16(b[4:]), Minor: le.Uint16(b[6:]), UUID: hex.EncodeToString(b[8:24]),
		Entries: le.Uint32(b[24:]), Clusters: le.Uint32(b[28:]), ChecksumPos: le.Uint64(b[72:])}
	if h.Major != 5 && h.Major != 6 {
		return h, 0, fmt.Errorf("%w: %s is ZIM version %d.%d, which kiwix-serve does not read (5 and 6 are)", ErrNotZIM, path, h.Major, h.Minor)
	}
	size := fi.Size()
	switch {
	case h.ChecksumPos < zimHeaderSize:
		return h, size, fmt.Errorf("%w: %s's header puts its checksum at byte %d, inside the header", ErrNotZIM, path, h.ChecksumPos)
	case h.ChecksumPos > math.MaxInt64-16:
		return h, size, fmt.Errorf("%w: %s's header puts its checksum at byte %d, past the end of any file", ErrNotZIM, path, h.ChecksumPos)
	case h.ChecksumPos > uint64(size)-16: // size >= zimHeaderSize here
		return h, size, fmt.Errorf("%w: %s is %d bytes and should be %d: copy it again (and compare its size with the source's)", ErrZIMCut, path, size, h.ChecksumPos+16)
	}
	return h, size, nil
}

// kindOf names a few kinds of file often mistaken for a ZIM.
func kindOf(b []byte) string {
	switch {
	case len(b) >= 4 && string(b[:4]) == "PK\x03\x04":
		return "it is a zip archive"
	case len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b:
		return "it is gzip-compressed"
	case len(b) >= 6 && string(b[:6]) == "\xfd7zXZ\x00":
		return "it is xz-compressed: unpack it first"
	case len(b) >= 5 && (string(b[:5]) == "<!DOC" || string(b[:5]) == "<html"):
		return "it is a web page: the download was probably an error page"
	}
	return "it is another kind of file"
}

// Verify checks path's header and its MD5 checksum (every byte is read:
// progress is told how many, every 64 MiB; ctx stops it) and returns the
// header, the size and the checksum.
func Verify(ctx context.Context, path string, progress func(done, total int64)) (Header, int64, string, error) {
	h, size, err := ReadHeader(path)
	if err != nil {
		return h, size, "", err
	}
	if progress == nil {
		progress = func(int64, int64) {}
	}
	f, err := os.Open(path)
	if err != nil {
		return h, size, "", err
	}
	defer f.Close()
	sum := md5.New()
	r := &progressio.Reader{Ctx: ctx, R: io.LimitReader(f, int64(h.ChecksumPos)), Total: size, Progress: progress}
	if _, err := io.Copy(sum, r); err != nil {
		return h, size, "", err
	}
	want := make([]byte, 16)
	if _, err := io.ReadFull(f, want); err != nil {
		return h, size, "", fmt.Errorf("%w: %s: %v", ErrZIMCut, path, err)
	}
	progress(size, size)
	got := sum.Sum(nil)
	if hex.EncodeToString(got) != hex.EncodeToString(want) {
		return h, size, "", fmt.Errorf("%w: %s (MD5 %x, the file says %x): the copy is damaged; copy it again", ErrZIMChecksum, path, got, want)
	}
	return h, size, hex.EncodeToString(got), nil
}
