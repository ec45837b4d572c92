package window

import (
	"context"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"rehome/app"
)

// At rest, the window hands back to the kernel what its start touched and
// no longer uses (docs/window.md, "Memory at rest"):
//
//   - the pages of its read-only file mappings that only this process maps
//     (MADV_PAGEOUT): above all rehome's own code and read-only data, which
//     the start reads nearly whole (every package's init, and the kernel's
//     read-around of 64 KiB at each first touch), about 30 MiB of the
//     binary's 42 MiB. Pages that WebKit's web process maps too are left
//     where they are (the kernel skips them), and no page's content is lost:
//     a page used again is read back from the file. Writable and anonymous
//     memory is never touched.
//   - C's malloc arenas (malloc_trim) and Go's heap (debug.FreeOSMemory):
//     what GTK, WebKit and Go freed while starting.
//
// It runs once, a few seconds after the page is ready, and again whenever
// the page has made calls since and then made none for a minute. Android
// does the same for apps in the background (process_madvise, PAGEOUT).
// REHOME_WINDOW_TRIM=off turns it off (the bench's baseline).
type rest struct {
	log   *slog.Logger
	calls *app.Calls
	after time.Duration // the first trim, after the page is ready
	quiet time.Duration // a later one, after this long with no call
}

// restOn is whether the window trims itself at rest.
func restOn() bool { return os.Getenv("REHOME_WINDOW_TRIM") != "off" }

// run trims after r.after, then after each quiet spell that follows calls,
// until ctx ends.
func (r rest) run(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(r.after):
	}
	r.trim("after the start")
	seen := app.CallsMade(r.calls)
	trimmed := seen
	tick := time.NewTicker(r.quiet)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now := app.CallsMade(r.calls)
		if now == seen && now != trimmed { // calls since the trim, none for r.quiet
			r.trim("after use")
			trimmed = now
		}
		seen = now
	}
}

// trim hands back what it can and logs how much it was.
func (r rest) trim(why string) {
	before := residentMiB()
	paged, err := pageOut()
	mallocTrim()
	debug.FreeOSMemory()
	r.log.Info("window at rest: memory handed back", "after", why,
		"rss_mib_before", before, "rss_mib_after", residentMiB(), "read_only_mapped_mib", paged>>20, "error", err)
}
