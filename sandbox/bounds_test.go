package sandbox

import (
	goruntime "runtime"
	"strings"
	"testing"
	"time"
)

func TestMachineBounds(t *testing.T) {
	b := MachineBounds()
	if err := CheckBounds(DefaultLimits, b); err != nil {
		t.Fatalf("the defaults are outside the bounds: %v", err)
	}
	if b.Max.CPUs != float64(goruntime.NumCPU()) || b.Min.Timeout != time.Second || b.Max.Memory < DefaultLimits.Memory {
		t.Fatalf("bounds %+v", b)
	}
	for _, c := range []struct {
		mod  func(*Limits)
		want string
	}{
		{func(l *Limits) { l.CPUs = 0.001 }, "the CPU limit 0.001 cores is outside the safe range: choose between 0.25 and"},
		{func(l *Limits) { l.CPUs = 1024 }, "the CPU limit 1024 cores is outside the safe range"},
		{func(l *Limits) { l.Memory = 100 << 40 }, "the memory limit 100 TiB is outside the safe range"},
		{func(l *Limits) { l.Memory = 1 << 20 }, "the memory limit 1 MiB is outside the safe range"},
		{func(l *Limits) { l.Timeout = 2 * time.Hour }, "the time limit 2h0m0s is outside the safe range"},
		{func(l *Limits) { l.Pids = 1 << 20 }, "the process limit 1048576 is outside the safe range"},
	} {
		l := DefaultLimits
		c.mod(&l)
		if err := CheckBounds(l, b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", l, err, c.want)
		}
	}
}
