package progressio

import (
	"context"
	"io"
)

// every is how many bytes pass between two progress reports.
const every = 64 << 20

// Reader reads R until Ctx ends, calling Progress(done, Total) every 64 MiB
// and once more at the end of R.
type Reader struct {
	Ctx      context.Context
	R        io.Reader
	Total    int64
	Progress func(done, total int64)
	done     int64
	next     int64
}

// Read reads from R, first checking Ctx, and reports progress as it goes.
func (c *Reader) Read(p []byte) (int, error) {
	if err := c.Ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.R.Read(p)
	c.done += int64(n)
	if c.done >= c.next || err == io.EOF {
		c.Progress(c.done, c.Total)
		c.next = c.done + every
	}
	return n, err
}
