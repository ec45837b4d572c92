package chatgptexport

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"rehome/backend/bytesize"
)

// Export is an open data export, read one conversation at a time with
// Next. It is not safe for concurrent use.
type Export struct {
	lim    Limits
	format string
	closer io.Closer
	in     *bounded
	dec    *json.Decoder
	single bool // one conversation object, not an array
	done   bool
	n      int
	size   int64
	// files are the zip's entries by the file id ChatGPT names them with
	// (file-…, file_…), for the attachments and plots a conversation
	// points at.
	files map[string]*zipFile
	ratio int64
}

// Open opens an export: a .zip (its conversations.json and files), a
// conversations.json, or one conversation object. Its first bytes say
// which; anything else is ErrNotExport in words that say what to give.
func Open(name string, lim Limits) (*Export, error) {
	lim = lim.orDefault()
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open the export: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open the export: %w", err)
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is a folder: give the export's .zip or its conversations.json", ErrNotExport, name)
	}
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(4)
	if st.Mode().IsRegular() && (bytes.Equal(head, []byte("PK\x03\x04")) || bytes.Equal(head, []byte("PK\x05\x06"))) {
		e, err := openZip(f, st.Size(), lim)
		if err != nil {
			f.Close()
		}
		return e, err
	}
	// A plain file, or a pipe (read once, as a stream).
	e := &Export{lim: lim, format: "json", closer: f}
	size := int64(0)
	if st.Mode().IsRegular() {
		size = st.Size()
	}
	if err := e.start(br, size); err != nil {
		f.Close()
		return nil, err
	}
	return e, nil
}

// openZip finds conversations.json in the zip (at its top, or one folder
// down) after checking every entry's name and count.
func openZip(f *os.File, size int64, lim Limits) (*Export, error) {
	zr, err := zip.NewReader(f, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fmt.Errorf("%w: the zip cannot be read (%v): download the export from ChatGPT again", ErrNotExport, err)
	}
	if zr == nil {
		return nil, fmt.Errorf("%w: the zip cannot be read", ErrNotExport)
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, fmt.Errorf("%w: the zip holds %d entries, over the %d rehome reads", ErrTooBig, len(zr.File), lim.MaxEntries)
	}
	e := &Export{lim: lim, format: "zip", closer: f, files: map[string]*zipFile{}}
	var conv *zip.File
	for _, zf := range zr.File {
		if !safeName(zf.Name) {
			return nil, fmt.Errorf("%w: it holds an entry named %q, which climbs out of its folder: this is not an export ChatGPT made, and rehome reads nothing of it", ErrUnsafeZip, zf.Name)
		}
		if strings.HasSuffix(zf.Name, "/") {
			continue
		}
		base := path.Base(zf.Name)
		if base == "conversations.json" && strings.Count(zf.Name, "/") <= 1 && (conv == nil || len(zf.Name) < len(conv.Name)) {
			conv = zf
			continue
		}
		if id := fileID(base); id != "" {
			if _, dup := e.files[id]; !dup {
				e.files[id] = zf
			}
		}
	}
	if conv == nil {
		return nil, fmt.Errorf("%w: the zip holds no conversations.json: give the .zip ChatGPT mails from Settings → Data controls → Export", ErrNotExport)
	}
	if conv.UncompressedSize64 > 1<<20 && conv.UncompressedSize64/max(conv.CompressedSize64, 1) > uint64(lim.MaxRatio) {
		return nil, fmt.Errorf("%w: its conversations.json says it expands %d times (%s from %s), as a zip bomb does; a real export expands less than %d times", ErrUnsafeZip,
			conv.UncompressedSize64/max(conv.CompressedSize64, 1), bytesize.Format(int64(conv.UncompressedSize64)), bytesize.Format(int64(conv.CompressedSize64)), lim.MaxRatio)
	}
	if conv.UncompressedSize64 > uint64(lim.MaxJSONBytes) {
		return nil, fmt.Errorf("%w: its conversations.json is %s, over the %s rehome reads", ErrTooBig,
			bytesize.Format(int64(conv.UncompressedSize64)), bytesize.Format(lim.MaxJSONBytes))
	}
	rc, err := conv.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: its conversations.json cannot be read: %v", ErrNotExport, err)
	}
	e.closer = multiCloser{rc, f}
	e.ratio = int64(conv.CompressedSize64)
	if err := e.start(rc, int64(conv.UncompressedSize64)); err != nil {
		return nil, err
	}
	return e, nil
}

// safeName is an entry name that stays inside the zip's folder: relative,
// no .. element, no backslash or drive letter.
func safeName(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\\x00") || strings.HasPrefix(name, "/") || (len(name) > 1 && name[1] == ':') {
		return false
	}
	return filepath.IsLocal(strings.TrimSuffix(name, "/"))
}

// fileID is the id ChatGPT names an exported file with: file-XXXX-name.png
// (file-service://file-XXXX) or file_0000…-uuid.png (sediment://file_0000…).
func fileID(base string) string {
	for _, p := range []string{"file-", "file_"} {
		if rest, ok := strings.CutPrefix(base, p); ok {
			if i := strings.IndexAny(rest, "-."); i > 0 {
				return p + rest[:i]
			}
			return p + rest
		}
	}
	return ""
}

type multiCloser []io.Closer

func (m multiCloser) Close() error {
	var first error
	for _, c := range m {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// start reads up to the first conversation: '[' opens an array, '{' is
// one conversation.
func (e *Export) start(r io.Reader, size int64) error {
	e.size = size
	e.in = &bounded{r: r, total: e.lim.MaxJSONBytes, compressed: e.ratio, ratio: e.lim.MaxRatio}
	br := bufio.NewReaderSize(e.in, 64<<10)
	for {
		b, err := br.ReadByte()
		if err != nil {
			return fmt.Errorf("%w: the file is empty or holds no JSON: give the export's .zip or its conversations.json", ErrNotExport)
		}
		if b == ' ' || b == '\n' || b == '\r' || b == '\t' || b == 0xEF || b == 0xBB || b == 0xBF {
			continue
		}
		if b != '[' && b != '{' {
			return fmt.Errorf("%w: it does not start with a JSON array or object: give the export's .zip or its conversations.json", ErrNotExport)
		}
		_ = br.UnreadByte()
		e.single = b == '{'
		break
	}
	e.dec = json.NewDecoder(br)
	if !e.single {
		if _, err := e.dec.Token(); err != nil {
			return fmt.Errorf("%w: %v", ErrNotExport, err)
		}
	}
	return nil
}

// Format is "zip" or "json".
func (e *Export) Format() string { return e.format }

// Size is conversations.json's size in bytes (as the zip declares it);
// Read how much of it has been read so far.
func (e *Export) Size() int64 { return e.size }

// Read is how many bytes of conversations.json have been read.
func (e *Export) Read() int64 { return e.in.n }

// Close releases the file.
func (e *Export) Close() error { return e.closer.Close() }

// Next returns the next conversation as ChatGPT wrote it, io.EOF after
// the last. An error wrapping ErrTooBig or ErrNotExport ends the export
// (the stream cannot be resynchronised); one wrapping ErrBadConversation
// is that conversation's alone, and Next may be called again.
func (e *Export) Next() (*Raw, error) {
	if e.done {
		return nil, io.EOF
	}
	if !e.single && !e.dec.More() {
		e.done = true
		if _, err := e.dec.Token(); err != nil {
			return nil, e.readErr(err)
		}
		return nil, io.EOF
	}
	if e.n >= e.lim.MaxConversations {
		e.done = true
		return nil, fmt.Errorf("%w: the export holds more than %d conversations", ErrTooBig, e.lim.MaxConversations)
	}
	e.n++
	// The decoder reads ahead in chunks: the bound on one conversation is
	// where this one starts plus its bound plus that read-ahead.
	e.in.conv = e.dec.InputOffset() + e.lim.MaxConversationBytes + 1<<20
	var raw Raw
	err := e.dec.Decode(&raw)
	e.in.conv = 0
	if e.single {
		e.done = true
	}
	if err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			// The decoder read the whole value: the stream goes on.
			return nil, fmt.Errorf("%w: conversation %d is not shaped as ChatGPT writes one (%v)", ErrBadConversation, e.n, err)
		}
		e.done = true
		return nil, e.readErr(err)
	}
	if len(raw.Mapping) == 0 && raw.Title == nil && raw.ID == "" && raw.ConversationID == "" {
		if e.single {
			return nil, fmt.Errorf("%w: the object has no mapping, title or id: give the export's .zip, its conversations.json, or one of its conversations", ErrNotExport)
		}
	}
	return &raw, nil
}

func (e *Export) readErr(err error) error {
	if errors.Is(err, ErrTooBig) || errors.Is(err, ErrUnsafeZip) {
		if errors.Is(err, errConvBound) {
			return fmt.Errorf("%w: conversation %d is over %s", ErrTooBig, e.n, bytesize.Format(e.lim.MaxConversationBytes))
		}
		return err
	}
	if e.n <= 1 {
		return fmt.Errorf("%w: conversations.json is cut short or is not JSON (%v): download the export again", ErrNotExport, err)
	}
	return fmt.Errorf("%w: conversations.json is cut short or is not JSON after conversation %d (%v): download the export again", ErrNotExport, e.n-1, err)
}

// bounded counts what is read and refuses to read past the export's
// bound, past the current conversation's bound, or past the compression
// ratio a real export has.
type bounded struct {
	r          io.Reader
	n          int64
	total      int64
	conv       int64 // 0: none
	compressed int64 // 0: not from a zip
	ratio      int64
}

func (b *bounded) Read(p []byte) (int, error) {
	limit := b.total
	if b.conv > 0 && b.conv < limit {
		limit = b.conv
	}
	if b.n >= limit {
		if b.conv > 0 && b.conv < b.total {
			return 0, fmt.Errorf("%w: %w", ErrTooBig, errConvBound)
		}
		return 0, fmt.Errorf("%w: conversations.json is over %s", ErrTooBig, bytesize.Format(b.total))
	}
	if int64(len(p)) > limit-b.n {
		p = p[:limit-b.n]
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.compressed > 0 && b.n > 1<<20 && b.n/max(b.compressed, 1) > b.ratio {
		return n, fmt.Errorf("%w: conversations.json expands more than %d times its compressed size, as a zip bomb does", ErrUnsafeZip, b.ratio)
	}
	return n, err
}

type zipFile = zip.File
