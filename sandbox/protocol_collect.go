package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"os"
	"path"

	"rehome/backend/bytesize"
)

// maxSkipped bounds the refused outputs remembered for the report.
const maxSkipped = 200

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
