package hardware

import (
	"context"
	"slices"
	"sync"
)

// Cache holds one detection for the session: the first Report detects, later
// ones return the same answer until Refresh. Concurrent callers wait for a
// detection in progress rather than starting their own.
type Cache struct {
	det    *Detector
	mu     sync.Mutex
	report *Report
}

// NewCache returns a Cache over d.
func NewCache(d *Detector) *Cache { return &Cache{det: d} }

// Report returns the cached detection, detecting first if there is none.
func (c *Cache) Report(ctx context.Context) (Report, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.report != nil {
		return clone(*c.report), nil
	}
	return c.detectLocked(ctx)
}

// Refresh detects again and replaces the cached report.
func (c *Cache) Refresh(ctx context.Context) (Report, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.detectLocked(ctx)
}

func (c *Cache) detectLocked(ctx context.Context) (Report, error) {
	r, err := c.det.Detect(ctx)
	if err != nil {
		return r, err
	}
	c.report = &r
	return clone(r), nil
}

// clone copies the slices so callers cannot change the cached report.
func clone(r Report) Report {
	r.GPUs = slices.Clone(r.GPUs)
	for i := range r.GPUs {
		r.GPUs[i].Notes = slices.Clone(r.GPUs[i].Notes)
	}
	r.OtherDisplays = slices.Clone(r.OtherDisplays)
	r.Notes = slices.Clone(r.Notes)
	r.CPU.Features = slices.Clone(r.CPU.Features)
	return r
}
