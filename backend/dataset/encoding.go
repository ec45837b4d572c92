package dataset

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// decodeText turns the head of a text file into UTF-8 and names its
// encoding the way Python does. ok is false for binary content. problem
// says, in words, when the bytes were not what a CSV reader expects.
func decodeText(head []byte, complete bool) (text, encoding, problem string, ok bool) {
	switch {
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}), bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		if !complete && len(head)%2 == 1 {
			head = head[:len(head)-1]
		}
		out, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(head)
		if err != nil {
			return "", "", "", false
		}
		return string(out), "utf-16", "", true
	case bytes.HasPrefix(head, []byte{0xef, 0xbb, 0xbf}):
		encoding = "utf-8-sig"
		head = head[3:]
	default:
		encoding = "utf-8"
	}
	if isBinary(head) {
		return "", "", "", false
	}
	if !complete {
		head = trimPartialRune(head)
	}
	if utf8.Valid(head) {
		return string(head), encoding, "", true
	}
	bad := firstInvalid(head)
	line := bytes.Count(head[:bad], []byte{'\n'}) + 1
	out, err := charmap.Windows1252.NewDecoder().Bytes(head)
	if err != nil { // cannot happen: every byte maps
		return string(bytes.ToValidUTF8(head, []byte("\uFFFD"))), encoding, "", true
	}
	problem = fmt.Sprintf("The file is not UTF-8 (line %d has bytes that are not), so it was read as Windows Western (cp1252). If accented letters look wrong, save the file again as “CSV UTF-8”.", line)
	return string(out), "cp1252", problem, true
}

// isBinary reports whether b looks like binary data rather than text: a
// NUL byte, or more than 10% control characters, in its first 8 KiB.
func isBinary(b []byte) bool {
	if len(b) > 8192 {
		b = b[:8192]
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	ctrl := 0
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
			ctrl++
		}
	}
	return len(b) > 0 && ctrl*10 > len(b)
}

// trimPartialRune drops an incomplete UTF-8 sequence cut at the end of a head.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= 3 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < 0x80 {
			return b // ASCII: nothing cut
		}
		if c >= 0xc0 { // a leading byte: is its sequence complete?
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}
