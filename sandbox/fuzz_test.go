package sandbox

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
)

// FuzzDemux feeds a Podman service's attach stream (a team host is
// someone else's machine) to the demuxer: nothing may panic, no frame may
// make it hold more than its buffer.
func FuzzDemux(f *testing.F) {
	frame := func(stream byte, p string) []byte {
		h := make([]byte, 8)
		h[0] = stream
		binary.BigEndian.PutUint32(h[4:], uint32(len(p)))
		return append(h, p...)
	}
	f.Add(append(frame(1, "hello\n"), frame(2, "oops\n")...))
	f.Add(frame(3, "the service's own error"))
	f.Add([]byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		var out, errb bytes.Buffer
		demux(bytes.NewReader(data), &out, &errb)
		if out.Len()+errb.Len() > len(data) {
			t.Fatal("demux wrote more than it read")
		}
		io.Discard.Write(nil)
	})
}
