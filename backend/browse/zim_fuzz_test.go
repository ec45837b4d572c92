package browse

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rehome/internal/testsupport/zimtest"
)

// zimSeeds are the real ZIM of the library tests (zimwriterfs over the
// Python docs, testZIM's pages) whole, the same with its checksum moved
// to the end of its header (a 96-byte ZIM ReadHeader and Verify take),
// cut and flipped as TestLibraryAddChecksZIM cuts and flips it, and that
// test's refused files, and the header whose checksum position wrapped.
// Without zim-tools the small forms are made of the
// header layout zim.go reads.
func zimSeeds(f *testing.F) [][]byte {
	head := make([]byte, zimHeaderSize)
	binary.LittleEndian.PutUint32(head, zimMagic)
	binary.LittleEndian.PutUint16(head[4:], 6)
	var seeds [][]byte
	if _, err := exec.LookPath("zimwriterfs"); err == nil {
		if _, err := os.Stat(filepath.Join(zimtest.DocsDir, "library", "json.html")); err == nil {
			pages := append(zimtest.Pages(f, "library/j", 0), zimtest.Pages(f, "library/cs", 0)...)
			pages = append(pages, zimtest.Pages(f, "tutorial/", 0)...)
			good, err := os.ReadFile(zimtest.Build(f, "python311-test", "Python 3.11 docs (test)", pages, false))
			if err != nil {
				f.Fatal(err)
			}
			seeds = append(seeds, good, good[:len(good)/2], flip(good, len(good)/3))
			head = append([]byte{}, good[:zimHeaderSize]...)
		}
	}
	wrapped := sealZIM(head, 6)
	binary.LittleEndian.PutUint64(wrapped[72:], 1<<64-8) // TestZIMChecksumPositionDoesNotWrap
	seeds = append(seeds, wrapped, sealZIM(head, 6), sealZIM(head, 5)[:zimHeaderSize+8], nil,
		append([]byte("PK\x03\x04"), make([]byte, 200)...), []byte("<!DOCTYPE html><html>"+strings.Repeat(" ", 200)))
	return seeds
}

// sealZIM is b (at least a header) made a whole ZIM of major version
// major: the magic number, the checksum at b's end, the MD5 after it.
func sealZIM(b []byte, major uint16) []byte {
	z := append([]byte{}, b...)
	if len(z) < zimHeaderSize {
		z = append(z, make([]byte, zimHeaderSize-len(z))...)
	}
	le := binary.LittleEndian
	le.PutUint32(z, zimMagic)
	le.PutUint16(z[4:], major)
	le.PutUint64(z[72:], uint64(len(z)))
	sum := md5.Sum(z)
	return append(z, sum[:]...)
}

// FuzzZIMHeader feeds carried files to what `rehome library add` reads
// of them before kiwix-serve opens one (ReadHeader, then Verify: the
// header, then every byte's MD5), seeded from the library tests' real
// ZIM. Nothing may panic; a file is refused with one of ZIM's errors
// (ErrNotZIM, ErrZIMCut, ErrZIMChecksum) or taken with a header that is
// its first 80 bytes, a version kiwix-serve reads, a checksum inside the
// file that is the MD5 of every byte before it. And any bytes sealed as
// a ZIM (the checksum placed and written) are taken, with their fields.
func FuzzZIMHeader(f *testing.F) {
	for _, s := range zimSeeds(f) {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "fuzz.zim")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		h, size, err := ReadHeader(p)
		if err != nil {
			zimRefused(t, err, p, ErrNotZIM, ErrZIMCut)
		} else {
			zimTaken(t, data, h, size)
		}
		h2, size2, sum, verr := Verify(context.Background(), p, checkProgress(t, int64(len(data))))
		switch {
		case err != nil && verr == nil:
			t.Fatalf("Verify took what ReadHeader refused (%v): %+v", err, h2)
		case verr != nil:
			zimRefused(t, verr, p, ErrNotZIM, ErrZIMCut, ErrZIMChecksum)
		default:
			zimTaken(t, data, h2, size2)
			want := md5.Sum(data[:h2.ChecksumPos])
			if sum != hex.EncodeToString(want[:]) || !bytes.Equal(data[h2.ChecksumPos:h2.ChecksumPos+16], want[:]) {
				t.Fatalf("Verify took checksum %s; the file's bytes sum to %x", sum, want)
			}
		}
		sealed := sealZIM(data, 5+uint16(len(data)%2))
		if err := os.WriteFile(p, sealed, 0o600); err != nil {
			t.Fatal(err)
		}
		h3, size3, _, err := Verify(context.Background(), p, nil)
		if err != nil || size3 != int64(len(sealed)) || h3.ChecksumPos != uint64(len(sealed)-16) {
			t.Fatalf("a sealed ZIM of %d bytes: %+v %d %v", len(sealed), h3, size3, err)
		}
		zimTaken(t, sealed, h3, size3)
	})
}

// zimTaken checks a header taken from data.
func zimTaken(t *testing.T, data []byte, h Header, size int64) {
	t.Helper()
	le := binary.LittleEndian
	switch {
	case size != int64(len(data)):
		t.Fatalf("size %d of a %d-byte file", size, len(data))
	case len(data) < zimHeaderSize || le.Uint32(data) != zimMagic:
		t.Fatalf("took a file without ZIM's magic: %+v", h)
	case h.Major != 5 && h.Major != 6:
		t.Fatalf("took ZIM version %d", h.Major)
	case h.ChecksumPos < zimHeaderSize || h.ChecksumPos > uint64(size) || uint64(size)-h.ChecksumPos < 16:
		t.Fatalf("took a checksum at %d of a %d-byte file", h.ChecksumPos, size)
	case h.UUID != hex.EncodeToString(data[8:24]) || h.Minor != le.Uint16(data[6:]) ||
		h.Entries != le.Uint32(data[24:]) || h.Clusters != le.Uint32(data[28:]) || h.ChecksumPos != le.Uint64(data[72:]):
		t.Fatalf("header %+v is not the file's bytes", h)
	}
}

// zimRefused checks that err is one of want and names the file.
func zimRefused(t *testing.T, err error, path string, want ...error) {
	t.Helper()
	for _, w := range want {
		if errors.Is(err, w) {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("refused without naming the file: %v", err)
			}
			return
		}
	}
	t.Fatalf("refused with an error that is not ZIM's: %v", err)
}

// checkProgress fails t when progress goes back or past total.
func checkProgress(t *testing.T, total int64) func(done, of int64) {
	var last int64
	return func(done, of int64) {
		if of != total || done < last || done > total {
			t.Fatalf("progress %d of %d after %d, the file is %d bytes", done, of, last, total)
		}
		last = done
	}
}

// A header whose checksum position is near 2^64 (its end, +16, wraps
// around to a small number) is refused, not taken as a ZIM that ends
// before its own header: ReadHeader compared the file's size with
// ChecksumPos+16 in uint64, which wrapped, and Verify then summed no byte
// (int64 of the position is negative) and compared the file's first 16
// bytes with that. A position no file reaches is not ZIM's; one past
// this file's end is a file cut short.
func TestZIMChecksumPositionDoesNotWrap(t *testing.T) {
	for pos, want := range map[uint64]error{1<<64 - 16: ErrNotZIM, 1<<64 - 8: ErrNotZIM, 1<<64 - 1: ErrNotZIM, 1 << 63: ErrNotZIM,
		1<<63 - 17: ErrZIMCut, 97: ErrZIMCut, 81: ErrZIMCut} {
		z := sealZIM(make([]byte, zimHeaderSize), 6)
		binary.LittleEndian.PutUint64(z[72:], pos)
		p := filepath.Join(t.TempDir(), "wrap.zim")
		if err := os.WriteFile(p, z, 0o600); err != nil {
			t.Fatal(err)
		}
		if h, _, err := ReadHeader(p); !errors.Is(err, want) {
			t.Errorf("checksum at %d of a %d-byte file: %+v %v, want %v", pos, len(z), h, err, want)
		}
		if _, _, _, err := Verify(t.Context(), p, nil); !errors.Is(err, want) {
			t.Errorf("verify, checksum at %d of a %d-byte file: %v, want %v", pos, len(z), err, want)
		}
	}
}
