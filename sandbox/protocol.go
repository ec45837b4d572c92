package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"rehome/backend/bytesize"
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
	// maxSkipped bounds the refused outputs remembered for the report.
	maxSkipped = 200
	// maxNameLen bounds an output's relative path.
	maxNameLen = 1024
	maxDepth   = 9
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

// capBuffer keeps the first max bytes written to it and counts the rest.
type capBuffer struct {
	max   int64
	buf   []byte
	total int64
}

func (b *capBuffer) write(p []byte) {
	b.total += int64(len(p))
	if room := b.max - int64(len(b.buf)); room > 0 {
		b.buf = append(b.buf, p[:min(int64(len(p)), room)]...)
	}
}

func (b *capBuffer) truncated() bool { return b.total > b.max }

// collector receives the decoded frames of one run.
type collector struct {
	lim    Limits
	stdout capBuffer
	stderr capBuffer
	onLive func(stream string, p []byte)
	save   *saver
	// keep, when set, decides on each saved file once it is complete: it
	// may replace it (by a link to an identical file kept earlier) or
	// refuse it (the reason; the file is then removed).
	keep func(f *File) string

	hello *helloFrame
	// helloSeen is closed at the runner's hello.
	helloSeen chan struct{}
	exit      *exitFrame
	// done is set, and codeDone closed, when the runner says the code
	// has ended and the outputs follow.
	done     bool
	codeDone chan struct{}
	files    []File
	displays []Display
	skipped  []Skipped
	nfiles   int
	nbytes   int64
	cur      *incoming
}

// incoming is the output file being received.
type incoming struct {
	name    string
	kind    string
	size    int64
	left    int64
	f       *os.File // nil when the file is being discarded
	path    string
	h       hash.Hash
	head    []byte
	discard string // why its bytes are dropped, if they are
	// display holds a shown value's JSON, which is kept in memory, never
	// saved as a file.
	display []byte
}

func newCollector(lim Limits, save *saver, onLive func(string, []byte)) *collector {
	return &collector{
		codeDone:  make(chan struct{}),
		helloSeen: make(chan struct{}),
		lim:       lim,
		stdout:    capBuffer{max: lim.StdoutMax},
		stderr:    capBuffer{max: lim.StderrMax},
		onLive:    onLive,
		save:      save,
	}
}

// output keeps a chunk of the program's stdout (typ frameStdout) or
// stderr and shows it live.
func (c *collector) output(typ byte, p []byte) {
	if typ == frameStdout {
		c.stdout.write(p)
		c.live("stdout", p)
		return
	}
	c.stderr.write(p)
	c.live("stderr", p)
}

func (c *collector) live(stream string, p []byte) {
	if c.onLive != nil && len(p) > 0 {
		c.onLive(stream, p)
	}
}

func (c *collector) control(typ byte, payload []byte) error {
	switch typ {
	case frameHello:
		var h helloFrame
		if err := decodeFrame(payload, &h, "hello"); err != nil {
			return err
		}
		if h.V != protocolVersion {
			return fmt.Errorf("runner protocol %d, this rehome speaks %d: rebuild the image with `rehome sandbox image build`", h.V, protocolVersion)
		}
		if c.hello == nil && c.helloSeen != nil {
			close(c.helloSeen)
		}
		c.hello = &h
	case frameDone:
		if !c.done {
			c.done = true
			if c.codeDone != nil {
				close(c.codeDone)
			}
		}
	case frameExit:
		var x exitFrame
		if err := decodeFrame(payload, &x, "exit"); err != nil {
			return err
		}
		if c.cur != nil {
			return errors.New("an exit frame inside a file")
		}
		c.exit = &x
	case frameSkip:
		var s skipFrame
		if err := decodeFrame(payload, &s, "skip"); err != nil {
			return err
		}
		c.skip(s.Name, s.Reason)
	case frameFile:
		var f fileFrame
		if err := decodeFrame(payload, &f, "file"); err != nil {
			return err
		}
		if c.cur != nil {
			return errors.New("a file frame before the previous file ended")
		}
		return c.openFile(f)
	}
	return nil
}

// decodeFrame reads the JSON payload of a control frame of the kind named.
func decodeFrame(payload []byte, v any, kind string) error {
	if err := json.Unmarshal(payload, v); err != nil {
		return fmt.Errorf("a bad %s frame: %w", kind, err)
	}
	return nil
}

func (c *collector) skip(name, reason string) {
	if len(c.skipped) >= maxSkipped {
		return
	}
	c.skipped = append(c.skipped, Skipped{Name: printable(name, 300), Reason: printable(reason, 300)})
}

func (c *collector) openFile(f fileFrame) error {
	if f.Size < 0 {
		return errors.New("a file frame with a negative size")
	}
	in := &incoming{name: f.Name, kind: f.Kind, size: f.Size, left: f.Size, h: sha256.New()}
	c.cur = in
	if f.Kind == "display" {
		return c.openDisplay(in)
	}
	if f.Kind != "plot" && f.Kind != "file" {
		in.kind = "file"
	}
	name, _, err := safeName(f.Name)
	switch {
	case err != nil:
		in.discard = err.Error()
	case c.nfiles >= c.lim.OutputFiles:
		in.discard = fmt.Sprintf("over the output count cap (%d files)", c.lim.OutputFiles)
	case f.Size > c.lim.OutputBytes-c.nbytes:
		in.discard = fmt.Sprintf("over the output size cap (%s in all)", bytesize.Format(c.lim.OutputBytes))
	case c.save == nil:
		in.discard = "outputs are not kept for this run"
	default:
		in.name = name
		rel := name
		if in.kind == "plot" {
			rel = path.Join("plots", name)
		}
		fh, full, err := c.save.create(rel)
		if err != nil {
			in.discard = err.Error()
			break
		}
		in.f, in.path = fh, full
		c.nfiles++
		c.nbytes += f.Size
	}
	if in.left == 0 {
		return c.finishFile()
	}
	return nil
}

func (c *collector) data(p []byte) error {
	in := c.cur
	if in == nil {
		return errors.New("file data outside a file")
	}
	if int64(len(p)) > in.left {
		return fmt.Errorf("more bytes for %q than its announced size", in.name)
	}
	in.left -= int64(len(p))
	if in.display != nil {
		in.display = append(in.display, p...)
	}
	if in.f != nil {
		if len(in.head) < 8 {
			in.head = append(in.head, p[:min(len(p), 8-len(in.head))]...)
		}
		in.h.Write(p)
		if _, err := in.f.Write(p); err != nil {
			in.f.Close()
			os.Remove(in.path)
			in.f = nil
			c.nfiles--
			c.nbytes -= in.size
			in.discard = "could not be saved: " + err.Error()
		}
	}
	if in.left == 0 {
		return c.finishFile()
	}
	return nil
}

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

func (c *collector) finishFile() error {
	in := c.cur
	c.cur = nil
	if in.kind == "display" && in.discard == "" {
		c.finishDisplay(in.display)
		return nil
	}
	if in.f == nil {
		c.skip(in.name, in.discard)
		return nil
	}
	if err := in.f.Close(); err != nil {
		os.Remove(in.path)
		c.nfiles--
		c.nbytes -= in.size
		c.skip(in.name, "could not be saved: "+err.Error())
		return nil
	}
	kind := in.kind
	if kind == "plot" && !bytes.Equal(in.head, pngMagic) {
		kind = "file" // a plot that is not a PNG is shown as a file, never as an image
	}
	f := File{
		Name:   in.name,
		Kind:   kind,
		Size:   in.size,
		SHA256: hex.EncodeToString(in.h.Sum(nil)),
		Path:   in.path,
	}
	if c.keep != nil {
		if why := c.keep(&f); why != "" {
			os.Remove(in.path)
			c.nfiles--
			c.nbytes -= in.size
			c.skip(in.name, why)
			return nil
		}
	}
	c.files = append(c.files, f)
	return nil
}

// abortFile drops a file cut short (the run was killed, or the stream broke).
func (c *collector) abortFile(reason string) {
	in := c.cur
	if in == nil {
		return
	}
	c.cur = nil
	if in.f != nil {
		in.f.Close()
		os.Remove(in.path)
		c.nfiles--
		c.nbytes -= in.size
	}
	c.skip(in.name, reason)
}

// safeName checks an output's relative path as the container named it:
// forward slashes between components, none empty, "." or "..", bounded
// length and depth. Characters a host file name should not carry (control
// characters, backslashes, bytes that were not UTF-8) become "_"; the
// second result says so.
func safeName(name string) (string, bool, error) {
	switch {
	case name == "":
		return "", false, errors.New("an empty name")
	case len(name) > maxNameLen:
		return "", false, errors.New("a name too long")
	case strings.HasPrefix(name, "/"):
		return "", false, errors.New("an absolute name")
	}
	clean := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\\' || r == utf8.RuneError {
			return '_'
		}
		return r
	}, strings.ToValidUTF8(name, "_"))
	parts := strings.Split(clean, "/")
	if len(parts) > maxDepth {
		return "", false, errors.New("folders nested too deep")
	}
	for _, p := range parts {
		switch {
		case p == "" || p == "." || p == "..":
			return "", false, fmt.Errorf("a name with a %q component", p)
		case len(p) > 255:
			return "", false, errors.New("a name component too long")
		}
	}
	return clean, clean != name, nil
}

// printable makes untrusted text safe to show: valid UTF-8, no control
// characters, at most max bytes.
func printable(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// saver writes outputs under one directory and nowhere else: every file is
// created new (O_EXCL), never through a link (O_NOFOLLOW), and through an
// os.Root so that no path — nor a link planted by anyone — leads outside.
type saver struct {
	dir  string
	root *os.Root
}

// newSaver creates dir (and its parents) if needed and opens it as the
// root of a run's outputs.
func newSaver(dir string) (*saver, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the output folder: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open the output folder: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return &saver{dir: abs, root: root}, nil
}

func (s *saver) create(rel string) (*os.File, string, error) {
	if d := path.Dir(rel); d != "." {
		if err := s.root.MkdirAll(d, 0o700); err != nil {
			return nil, "", fmt.Errorf("could not create its folder: %v", errors.Unwrap(err))
		}
	}
	f, err := s.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, "", errors.New("a file of that name is already in the output folder (not overwritten)")
		}
		return nil, "", fmt.Errorf("could not be saved: %v", err)
	}
	return f, filepath.Join(s.dir, filepath.FromSlash(rel)), nil
}

func (s *saver) close() {
	if s != nil && s.root != nil {
		s.root.Close()
	}
}

// Caps on the values a run shows (Result.Displays).
const (
	maxDisplays     = 100
	maxDisplayBytes = 512 << 10
)

// openDisplay starts receiving a shown value, kept in memory within caps.
func (c *collector) openDisplay(in *incoming) error {
	in.kind = "display"
	switch {
	case len(c.displays) >= maxDisplays:
		in.discard = fmt.Sprintf("over the cap of %d shown values", maxDisplays)
	case in.size > maxDisplayBytes:
		in.discard = fmt.Sprintf("a shown value over %s", bytesize.Format(maxDisplayBytes))
	default:
		in.display = make([]byte, 0, in.size)
	}
	if in.left == 0 {
		return c.finishFile()
	}
	return nil
}

// finishDisplay checks a shown value as the container sent it: known kinds
// only, text made printable, tables bounded.
func (c *collector) finishDisplay(data []byte) {
	var d Display
	if err := json.Unmarshal(data, &d); err != nil {
		c.skip("display", "a shown value that is not valid JSON")
		return
	}
	clean := Display{Kind: d.Kind, Text: strings.ToValidUTF8(d.Text, "\uFFFD"), Result: d.Result}
	switch d.Kind {
	case "text":
	case "table":
		const maxRows, maxCols = 200, 100
		cell := func(s string) string { return printable(s, 300) }
		for i, col := range d.Columns {
			if i >= maxCols {
				break
			}
			clean.Columns = append(clean.Columns, cell(col))
		}
		for i, row := range d.Rows {
			if i >= maxRows {
				break
			}
			r := make([]string, 0, min(len(row), maxCols))
			for j, v := range row {
				if j >= maxCols {
					break
				}
				r = append(r, cell(v))
			}
			clean.Rows = append(clean.Rows, r)
			if i < len(d.Index) {
				clean.Index = append(clean.Index, cell(d.Index[i]))
			}
		}
		if len(d.Shape) == 2 {
			clean.Shape = d.Shape
		}
	case "image":
		name, _, err := safeName(d.File)
		if err != nil {
			c.skip("display", "a shown image with a bad name")
			return
		}
		clean.File = name
	default:
		c.skip("display", "a shown value of an unknown kind")
		return
	}
	c.displays = append(c.displays, clean)
}
