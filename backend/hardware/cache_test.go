package hardware

import (
	"context"
	"sync"
	"testing"
)

func TestCacheDetectsOnceUntilRefresh(t *testing.T) {
	d, rec := fixture(t, "nvidia-rtx3090")
	c := NewCache(d)
	ctx := context.Background()
	first, err := c.Report(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := c.Report(ctx)
			if err != nil || !r.DetectedAt.Equal(first.DetectedAt) {
				t.Errorf("cached report differs: %v at %v", err, r.DetectedAt)
			}
		}()
	}
	wg.Wait()
	if rec.calls != 1 {
		t.Errorf("nvidia-smi ran %d times for one detection", rec.calls)
	}
	// Callers cannot change the cached report.
	first.GPUs[0].Product = "changed"
	first.Notes = append(first.Notes, "changed")
	again, _ := c.Report(ctx)
	if again.GPUs[0].Product == "changed" {
		t.Error("a caller's edit reached the cache")
	}
	fresh, err := c.Refresh(ctx)
	if err != nil || !fresh.DetectedAt.After(first.DetectedAt) || rec.calls != 2 {
		t.Errorf("Refresh: %v at %v (first %v), nvidia-smi calls %d", err, fresh.DetectedAt, first.DetectedAt, rec.calls)
	}
	if after, _ := c.Report(ctx); !after.DetectedAt.Equal(fresh.DetectedAt) {
		t.Error("Report after Refresh did not return the refreshed detection")
	}
}
