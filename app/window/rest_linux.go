package window

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// pageOut advises MADV_PAGEOUT over this process's file mappings that are
// not writable (rest.go says why) and returns how many bytes they span.
// The binary's own mappings are also marked MADV_RANDOM: a page of its
// code or tables used again comes back alone, not with the 64 KiB around
// it that the kernel reads by default.
func pageOut() (int64, error) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	exe, _ := os.Executable()
	return pageOutMaps(bytes.NewReader(maps), func(start, length uintptr, path string) error {
		if path == exe {
			if err := madvise(start, length, unix.MADV_RANDOM); err != nil {
				return err
			}
		}
		return madvise(start, length, unix.MADV_PAGEOUT)
	})
}

// pageOutMaps advises each read-only file mapping that maps lists, through
// advise. A mapping the kernel refuses is passed over (the first refusal is
// returned): the others are still advised.
func pageOutMaps(maps io.Reader, advise func(start, length uintptr, path string) error) (int64, error) {
	var total int64
	var first error
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		start, end, path, ok := readOnlyFileMapping(sc.Text())
		if !ok {
			continue
		}
		if err := advise(start, end-start, path); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		total += int64(end - start)
	}
	if err := sc.Err(); err != nil && first == nil {
		first = err
	}
	return total, first
}

// readOnlyFileMapping reads one line of /proc/PID/maps ("start-end perms
// offset dev inode path") and says whether it maps a regular file without
// write permission: not anonymous memory, not a stack or [vdso], not a
// device (/dev/…, the GPU's), not shared memory that can be written.
func readOnlyFileMapping(line string) (start, end uintptr, path string, ok bool) {
	f := strings.Fields(line)
	if len(f) < 6 || strings.Contains(f[1], "w") || !strings.HasPrefix(f[5], "/") || strings.HasPrefix(f[5], "/dev/") {
		return 0, 0, "", false
	}
	lo, hi, found := strings.Cut(f[0], "-")
	s, err1 := strconv.ParseUint(lo, 16, 64)
	e, err2 := strconv.ParseUint(hi, 16, 64)
	if !found || err1 != nil || err2 != nil || e <= s {
		return 0, 0, "", false
	}
	return uintptr(s), uintptr(e), strings.Join(f[5:], " "), true
}

func madvise(start, length uintptr, advice int) error {
	if _, _, errno := unix.Syscall(unix.SYS_MADVISE, start, length, uintptr(advice)); errno != 0 {
		return fmt.Errorf("madvise %#x+%d: %w", start, length, errno)
	}
	return nil
}

// residentMiB is this process's resident memory (VmRSS) in MiB, or -1.
func residentMiB() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	kb, err := statusKiB(status, "VmRSS")
	if err != nil {
		return -1
	}
	return kb >> 10
}

// statusKiB reads one "Key:   N kB" line of /proc/PID/status.
func statusKiB(status []byte, key string) (int64, error) {
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no " + key + " in the status")
}
