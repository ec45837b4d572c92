package window

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mappingRssKiB is the resident size of the mapping of this process that
// starts at addr, from /proc/self/smaps.
func mappingRssKiB(t *testing.T, addr uintptr) int64 {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	start := strconv.FormatUint(uint64(addr), 16) + "-"
	in := false
	for _, l := range strings.Split(string(smaps), "\n") {
		if strings.Contains(l, "-") && len(strings.Fields(l)) >= 5 && !strings.HasSuffix(strings.Fields(l)[0], ":") {
			in = strings.HasPrefix(l, start)
			continue
		}
		if v, ok := strings.CutPrefix(l, "Rss:"); in && ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no mapping at %#x in /proc/self/smaps", addr)
	return 0
}

// diskFile writes size bytes to a file on a disk-backed folder (a page of
// tmpfs is memory, which a page-out cannot hand back) and returns it open.
func diskFile(t *testing.T, size int) *os.File {
	t.Helper()
	dir := t.TempDir()
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) == nil && st.Type == unix.TMPFS_MAGIC {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		if dir, err = os.MkdirTemp(cache, "rehome-rest-test-"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	f, err := os.Create(filepath.Join(dir, "pages"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.Write(bytes.Repeat([]byte("rehome "), size/7+1)[:size]); err != nil {
		t.Fatal(err)
	}
	return f
}

func touch(b []byte) (sum byte) {
	for i := 0; i < len(b); i += os.Getpagesize() {
		sum += b[i]
	}
	return sum
}

// The trim at rest hands back a read-only file mapping's pages, leaves a
// writable private mapping's changed pages and their content alone, and
// this process (its own code among what was paged out) goes on running.
func TestPageOutHandsBackReadOnlyFilePagesOnly(t *testing.T) {
	const size = 8 << 20
	f := diskFile(t, size)
	ro, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(ro)
	rw, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(rw)
	touch(ro)
	for i := 0; i < size; i += os.Getpagesize() {
		rw[i] = 'X' // a private copy of every page: memory only this mapping holds
	}
	roAddr, rwAddr := uintptr(unsafe.Pointer(&ro[0])), uintptr(unsafe.Pointer(&rw[0]))
	roBefore, rwBefore := mappingRssKiB(t, roAddr), mappingRssKiB(t, rwAddr)
	if roBefore < size>>10*9/10 || rwBefore < size>>10*9/10 {
		t.Fatalf("pages not resident before: read-only %d KiB, writable %d KiB of %d", roBefore, rwBefore, size>>10)
	}
	paged, err := pageOut()
	if err != nil {
		t.Logf("a mapping was refused (the others were advised): %v", err)
	}
	roAfter, rwAfter := mappingRssKiB(t, roAddr), mappingRssKiB(t, rwAddr)
	t.Logf("advised %d MiB of read-only file mappings; the test's read-only mapping %d → %d KiB, writable %d → %d KiB", paged>>20, roBefore, roAfter, rwBefore, rwAfter)
	if roAfter > roBefore/4 {
		t.Errorf("the read-only file mapping kept %d of %d KiB", roAfter, roBefore)
	}
	if rwAfter < rwBefore*9/10 {
		t.Errorf("the writable mapping was trimmed: %d → %d KiB", rwBefore, rwAfter)
	}
	for i := 0; i < size; i += os.Getpagesize() {
		if rw[i] != 'X' {
			t.Fatalf("the writable mapping lost its change at %d", i)
		}
	}
	if !bytes.Equal(ro, bytes.Repeat([]byte("rehome "), size/7+1)[:size]) {
		t.Fatal("the read-only mapping does not read the file back")
	}
}

// Only read-only mappings of regular files are advised, a refusal of one
// is reported without stopping the others.
func TestPageOutPicksReadOnlyFileMappings(t *testing.T) {
	maps := strings.Join([]string{
		"55d0c0000000-55d0c2000000 r-xp 00000000 fe:01 123 /usr/bin/rehome-window",
		"55d0c2000000-55d0c2100000 r--p 02000000 fe:01 123 /usr/bin/rehome-window",
		"55d0c2100000-55d0c2200000 rw-p 02100000 fe:01 123 /usr/bin/rehome-window",
		"7f0000000000-7f0000100000 rw-p 00000000 00:00 0 ",
		"7f0000100000-7f0000200000 rw-s 00000000 00:05 9 /SYSV00000000 (deleted)",
		"7f0000200000-7f0000300000 r--s 00000000 00:05 10 /dev/dri/card0",
		"7f0000300000-7f0000400000 r-xp 00000000 fe:01 77 /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1",
		"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]",
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]",
	}, "\n")
	var got []uintptr
	var paths []string
	refused := errors.New("refused")
	total, err := pageOutMaps(strings.NewReader(maps), func(start, length uintptr, path string) error {
		got, paths = append(got, start), append(paths, path)
		if start == 0x7f0000300000 {
			return refused
		}
		return nil
	})
	want := []uintptr{0x55d0c0000000, 0x55d0c2000000, 0x7f0000300000}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("advised %#x, want %#x", got, want)
	}
	if paths[0] != "/usr/bin/rehome-window" || paths[2] != "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1" {
		t.Fatalf("paths %q", paths)
	}
	if total != 0x2000000+0x100000 || !errors.Is(err, refused) {
		t.Fatalf("total %#x, err %v", total, err)
	}
}
