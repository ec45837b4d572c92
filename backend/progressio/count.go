package progressio

import "io"

// Counter counts the bytes that pass through it: read from R, or written
// to W (set the one it is used for).
type Counter struct {
	R io.Reader
	W io.Writer
	N int64
}

// Read reads from R and counts what it read.
func (c *Counter) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}

// Write writes to W and counts what it wrote.
func (c *Counter) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	c.N += int64(n)
	return n, err
}
