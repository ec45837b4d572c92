package core

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"rehome/backend/bytesize"
	"rehome/sandbox"
)

// A limit as the user names it: `timeout=3s memory=1GiB` in the terminal,
// a field of Settings → Sandbox in the window. Either way the values are
// saved by Runs.Save, which holds them to this machine's safe range.

// LimitKey is one limit the user may set, by name.
type LimitKey struct {
	Name string // as typed: timeout, memory, …
	What string // in words, with an example value
	get  func(sandbox.Limits) string
	set  func(*sandbox.Limits, string) error
}

// LimitKeys are the limits the user may set, in the order Settings shows
// them.
var LimitKeys = []LimitKey{
	{"timeout", "wall-clock time of a run or a cell (3s, 2m)",
		func(l sandbox.Limits) string { return l.Timeout.String() },
		func(l *sandbox.Limits, v string) (err error) { l.Timeout, err = parseDuration(v); return }},
	{"memory", "memory ceiling (1GiB, 512MiB; GB is 10⁹ bytes)", sizeGet(func(l *sandbox.Limits) *int64 { return &l.Memory }), sizeSet(func(l *sandbox.Limits) *int64 { return &l.Memory })},
	{"cpus", "CPU cores (1, 1.5)",
		func(l sandbox.Limits) string { return strconv.FormatFloat(l.CPUs, 'f', -1, 64) },
		func(l *sandbox.Limits, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f <= 0 {
				return fmt.Errorf("%q is not a number of cores, such as 1 or 1.5", v)
			}
			l.CPUs = f
			return nil
		}},
	countKey("pids", "most processes and threads at once (256)", "256", func(l *sandbox.Limits) *int64 { return &l.Pids }),
	{"stdout", "output kept of stdout (1MiB)", sizeGet(func(l *sandbox.Limits) *int64 { return &l.StdoutMax }), sizeSet(func(l *sandbox.Limits) *int64 { return &l.StdoutMax })},
	{"stderr", "output kept of stderr (1MiB)", sizeGet(func(l *sandbox.Limits) *int64 { return &l.StderrMax }), sizeSet(func(l *sandbox.Limits) *int64 { return &l.StderrMax })},
	countKey("files", "most output files taken back (64)", "64", func(l *sandbox.Limits) *int { return &l.OutputFiles }),
	{"output", "total size of the output files (64MiB)", sizeGet(func(l *sandbox.Limits) *int64 { return &l.OutputBytes }), sizeSet(func(l *sandbox.Limits) *int64 { return &l.OutputBytes })},
	{"tmp", "size of the in-memory /tmp (128MiB)", sizeGet(func(l *sandbox.Limits) *int64 { return &l.TmpSize }), sizeSet(func(l *sandbox.Limits) *int64 { return &l.TmpSize })},
}

// Get is the limit's value in l, written as the user types it.
func (k LimitKey) Get(l sandbox.Limits) string { return k.get(l) }

// SetLimits applies KEY=VALUE assignments to l and returns it; an unknown
// key or a value that does not read is an error naming the valid keys or
// the value's form. The result is not yet checked against the machine's
// range: Runs.Save does that.
func SetLimits(l sandbox.Limits, assignments []string) (sandbox.Limits, error) {
	for _, a := range assignments {
		name, value, ok := strings.Cut(a, "=")
		name, value = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(value)
		if !ok || name == "" || value == "" {
			return l, fmt.Errorf("%q is not KEY=VALUE, such as timeout=3s (keys: %s)", a, limitNames())
		}
		k, found := limitKey(name)
		if !found {
			return l, fmt.Errorf("there is no limit %q: the keys are %s", name, limitNames())
		}
		if err := k.set(&l, value); err != nil {
			return l, fmt.Errorf("%s: %w", name, err)
		}
	}
	return l, nil
}

func limitKey(name string) (LimitKey, bool) {
	for _, k := range LimitKeys {
		if k.Name == name {
			return k, true
		}
	}
	return LimitKey{}, false
}

func limitNames() string {
	names := make([]string, len(LimitKeys))
	for i, k := range LimitKeys {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

func parseDuration(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a time, such as 3s, 90s or 2m", v)
	}
	return d, nil
}

// countKey is a limit that counts (processes, files): a whole number over
// 0, such as example.
func countKey[N int | int64](name, what, example string, field func(*sandbox.Limits) *N) LimitKey {
	return LimitKey{name, what,
		func(l sandbox.Limits) string { return strconv.FormatInt(int64(*field(&l)), 10) },
		func(l *sandbox.Limits, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return fmt.Errorf("%q is not a whole number, such as %s", v, example)
			}
			*field(l) = N(n)
			return nil
		}}
}

func sizeGet(field func(*sandbox.Limits) *int64) func(sandbox.Limits) string {
	return func(l sandbox.Limits) string { return bytesize.Format(*field(&l)) }
}

func sizeSet(field func(*sandbox.Limits) *int64) func(*sandbox.Limits, string) error {
	return func(l *sandbox.Limits, v string) error {
		n, err := bytesize.Parse(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not a size, such as 512MiB or 1GiB", v)
		}
		*field(l) = n
		return nil
	}
}
