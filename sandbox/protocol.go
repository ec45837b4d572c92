package sandbox

import (
	"encoding/binary"
	"fmt"
)

// The frames the runner sends on the container's stdout (see
// sandbox/recipe/runner.py): 1 byte type, 4 bytes big-endian length, payload.
const (
	frameHello  = 'H'
	frameStdout = 'O'
	frameStderr = 'E'
	frameFile   = 'F'
	frameData   = 'D'
	frameSkip   = 'S'
	frameDone   = 'C'
	frameExit   = 'X'

	protocolVersion = 1
	// maxControlFrame bounds the JSON frames the host buffers whole.
	maxControlFrame = 256 << 10
)

// Observed is what the runner saw of its own confinement from inside the
// container, before the code ran.
type Observed struct {
	Cgroup CgroupObserved `json:"cgroup"`
	// Rlimits maps a limit's name (nofile, nproc, data…) to [soft, hard];
	// -1 is unlimited.
	Rlimits       map[string][2]int64 `json:"rlimits"`
	UID           int                 `json:"uid"`
	GID           int                 `json:"gid"`
	Status        map[string]string   `json:"status"`
	Hostname      string              `json:"hostname"`
	NetInterfaces []string            `json:"net_interfaces"`
}

// CgroupObserved is the container's cgroup ceilings as seen from inside
// (nil: none).
type CgroupObserved struct {
	Version     int    `json:"cgroup_version"`
	MemoryLimit *int64 `json:"memory_limit"`
	SwapLimit   *int64 `json:"swap_limit"`
	PidsLimit   *int64 `json:"pids_limit"`
	CPUQuota    *int64 `json:"cpu_quota"`
	CPUPeriod   *int64 `json:"cpu_period"`
}

type helloFrame struct {
	V        int       `json:"v"`
	Observed *Observed `json:"observed"`
}

// exitFrame is the runner's last word.
type exitFrame struct {
	Refused        string `json:"refused"`
	ExitCode       *int   `json:"exit_code"`
	Signal         *int   `json:"signal"`
	OOMKills       *int   `json:"oom_kills"`
	MemoryPeak     *int64 `json:"memory_peak"`
	RSSPeak        int64  `json:"rss_peak"`
	WatchdogKilled bool   `json:"watchdog_killed"`
	DeadlineKilled bool   `json:"deadline_killed"`
	StdoutBytes    int64  `json:"stdout_bytes"`
	StderrBytes    int64  `json:"stderr_bytes"`
	CodeMS         int64  `json:"code_ms"`
	DurationMS     int64  `json:"duration_ms"`
}

type fileFrame struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Size int64  `json:"size"`
}

type skipFrame struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// decoder is an io.Writer that parses the frame stream as it arrives, with
// bounded memory whatever the container sends: stream and file data pass
// straight through; only small JSON frames are buffered. Once the stream
// breaks the protocol, the rest is counted and dropped.
type decoder struct {
	c      *collector
	hdr    [5]byte
	nhdr   int
	typ    byte
	left   uint32
	ctrl   []byte
	broken error
	// dropped counts bytes thrown away after a protocol error.
	dropped int64
}

func (d *decoder) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if d.broken != nil {
			d.dropped += int64(len(p))
			return n, nil
		}
		if d.nhdr < len(d.hdr) {
			k := copy(d.hdr[d.nhdr:], p)
			d.nhdr += k
			p = p[k:]
			if d.nhdr < len(d.hdr) {
				continue
			}
			d.typ = d.hdr[0]
			d.left = binary.BigEndian.Uint32(d.hdr[1:])
			if err := d.begin(); err != nil {
				d.fail(err)
				continue
			}
			if d.left == 0 {
				d.end()
			}
			continue
		}
		k := min(uint32(len(p)), d.left)
		chunk := p[:k]
		p = p[k:]
		d.left -= k
		switch d.typ {
		case frameStdout, frameStderr:
			d.c.output(d.typ, chunk)
		case frameData:
			if err := d.c.data(chunk); err != nil {
				d.fail(err)
				continue
			}
		default:
			d.ctrl = append(d.ctrl, chunk...)
		}
		if d.left == 0 {
			d.end()
		}
	}
	return n, nil
}

func (d *decoder) begin() error {
	switch d.typ {
	case frameStdout, frameStderr, frameData:
		return nil
	case frameHello, frameFile, frameSkip, frameExit, frameDone:
		if d.left > maxControlFrame {
			return fmt.Errorf("a %q frame of %d bytes", d.typ, d.left)
		}
		d.ctrl = d.ctrl[:0]
		return nil
	}
	return fmt.Errorf("an unknown frame type %#x", d.typ)
}

func (d *decoder) end() {
	d.nhdr = 0
	if err := d.c.control(d.typ, d.ctrl); err != nil {
		d.fail(err)
	}
	d.ctrl = d.ctrl[:0]
}

func (d *decoder) fail(err error) {
	if d.broken == nil {
		d.broken = err
		d.c.abortFile("the output channel broke")
	}
}
