package models

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
)

// Bounds of a GGUF header, checked by checkGGUFHeader before the parser
// (gguf-parser-go) reads it: what the parser allocates follows the
// header's counts and lengths, and some of its accessors panic on what the
// format allows but no model holds (arrays of arrays, dimensions whose
// product overflows).
const (
	// maxGGUFHeader is the most of a file the header may take: a model's
	// metadata (its tokenizer's 256k tokens and merges included) and its
	// tensor table take a few tens of MiB.
	maxGGUFHeader = 512 << 20
	// maxGGUFString bounds one string (a chat template is a few KiB).
	maxGGUFString = 16 << 20
	// maxGGUFTensors bounds the tensor table (a 671B MoE has ~1,100 per
	// shard; llama.cpp reads no file with more than a few thousand).
	maxGGUFTensors = 1 << 20
	// maxGGUFElements bounds one tensor's elements (2^48: 256 T).
	maxGGUFElements = 1 << 48
)

// errBadHeader is why a header was refused before it was parsed.
type errBadHeader struct{ why string }

func (e *errBadHeader) Error() string { return e.why }

func badHeader(format string, a ...any) error { return &errBadHeader{fmt.Sprintf(format, a...)} }

// ggufReader reads a header's fields, counting what it read.
type ggufReader struct {
	r     *bufio.Reader
	order binary.ByteOrder
	wide  bool // v2+: counts and lengths are 64-bit
	read  int64
	size  int64
}

func (g *ggufReader) bytes(n int64) error {
	if n > g.size-g.read {
		return badHeader("a field runs past the end of the file")
	}
	if g.read+n > maxGGUFHeader {
		return badHeader("the header is over %d MiB", maxGGUFHeader>>20)
	}
	if _, err := g.r.Discard(int(n)); err != nil {
		return err
	}
	g.read += n
	return nil
}

// full reads len(b) bytes into b.
func (g *ggufReader) full(b []byte) error {
	if _, err := io.ReadFull(g.r, b); err != nil {
		return err
	}
	g.read += int64(len(b))
	return nil
}

func (g *ggufReader) u32() (uint32, error) {
	var b [4]byte
	err := g.full(b[:])
	return g.order.Uint32(b[:]), err
}

func (g *ggufReader) u64() (uint64, error) {
	var b [8]byte
	err := g.full(b[:])
	return g.order.Uint64(b[:]), err
}

// count reads a count or a length (32-bit in GGUF v1).
func (g *ggufReader) count() (uint64, error) {
	if !g.wide {
		v, err := g.u32()
		return uint64(v), err
	}
	return g.u64()
}

func (g *ggufReader) str() (string, error) {
	n, err := g.count()
	if err != nil {
		return "", err
	}
	if n > maxGGUFString {
		return "", badHeader("a string of %d bytes (over %d MiB)", n, maxGGUFString>>20)
	}
	if int64(n) > g.size-g.read {
		return "", badHeader("a string runs past the end of the file")
	}
	if n > 64 { // only keys and short values are kept
		return "", g.bytes(int64(n))
	}
	b := make([]byte, n)
	if err := g.full(b); err != nil {
		return "", err
	}
	return string(b), nil
}

// ggufScalarSize is the size of each GGUF value type but string (8) and
// array (9).
var ggufScalarSize = map[uint32]int64{0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}

// value skips one value of type t; an array's elements may not be arrays.
func (g *ggufReader) value(key string, t uint32, inArray bool) error {
	switch t {
	case 8:
		_, err := g.str()
		return err
	case 9:
		if inArray {
			return badHeader("%s is an array of arrays, which no model holds", key)
		}
		et, err := g.u32()
		if err != nil {
			return err
		}
		n, err := g.count()
		if err != nil {
			return err
		}
		sz, scalar := ggufScalarSize[et]
		if !scalar {
			if et != 8 && et != 9 {
				return badHeader("%s is an array of an unknown type %d", key, et)
			}
			sz = 8 // a string or an array counts as 8 bytes at the least
		}
		if n > uint64(g.size-g.read)/uint64(sz) {
			return badHeader("%s claims %d values, more than the file holds", key, n)
		}
		if scalar {
			return g.bytes(int64(n) * sz)
		}
		for range n {
			if err := g.value(key, et, true); err != nil {
				return err
			}
		}
		return nil
	}
	sz, ok := ggufScalarSize[t]
	if !ok {
		return badHeader("%s has an unknown value type %d", key, t)
	}
	if key == "split.tensors.count" {
		var v uint64
		var err error
		if sz == 8 {
			v, err = g.u64()
		} else if sz == 4 {
			var w uint32
			w, err = g.u32()
			v = uint64(w)
		} else {
			err = g.bytes(sz)
		}
		if err == nil && v > maxGGUFTensors {
			err = badHeader("split.tensors.count is %d (over %d)", v, maxGGUFTensors)
		}
		return err
	}
	return g.bytes(sz)
}

// checkGGUFHeader reads the header of the GGUF file at path without
// keeping it, and refuses one that would make the parser allocate past the
// bounds above or panic. A file that is no GGUF at all is left to the
// parser's own words.
func checkGGUFHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	g := &ggufReader{r: bufio.NewReaderSize(f, 1<<16), size: st.Size()}
	var magic [4]byte
	if _, err := io.ReadFull(g.r, magic[:]); err != nil || string(magic[:]) != "GGUF" {
		return nil // the parser says what it is not
	}
	g.read = 4
	g.order = binary.LittleEndian
	v, err := g.u32()
	if err != nil {
		return err
	}
	if v > 0xffff { // a big-endian file
		g.order = binary.BigEndian
		v = bits.ReverseBytes32(v)
	}
	g.wide = v >= 2
	tensors, err := g.count()
	if err != nil {
		return err
	}
	kvs, err := g.count()
	if err != nil {
		return err
	}
	if tensors > maxGGUFTensors {
		return badHeader("it claims %d tensors (over %d)", tensors, maxGGUFTensors)
	}
	if kvs > uint64(g.size)/8 {
		return badHeader("it claims %d metadata entries, more than the file holds", kvs)
	}
	for range kvs {
		key, err := g.str()
		if err != nil {
			return err
		}
		t, err := g.u32()
		if err != nil {
			return err
		}
		if err := g.value(key, t, false); err != nil {
			return err
		}
	}
	for range tensors {
		if err := g.tensorInfo(); err != nil {
			return err
		}
	}
	return nil
}

// tensorInfo checks one entry of the tensor table: at most 4 dimensions
// (GGML_MAX_DIMS), whose product stays under maxGGUFElements.
func (g *ggufReader) tensorInfo() error {
	name, err := g.str()
	if err != nil {
		return err
	}
	dims, err := g.u32()
	if err != nil {
		return err
	}
	if dims == 0 || dims > 4 {
		return badHeader("tensor %q has %d dimensions (GGUF allows 1 to 4)", name, dims)
	}
	elems := uint64(1)
	for range dims {
		d, err := g.count()
		if err != nil {
			return err
		}
		hi, lo := bits.Mul64(elems, d)
		if hi != 0 || lo > maxGGUFElements {
			return badHeader("tensor %q claims more than 2^48 elements", name)
		}
		elems = lo
	}
	if _, err := g.u32(); err != nil { // type
		return err
	}
	_, err = g.u64() // offset
	return err
}

// isBadHeader says whether err is checkGGUFHeader's refusal.
func isBadHeader(err error) bool {
	var b *errBadHeader
	return errors.As(err, &b)
}
