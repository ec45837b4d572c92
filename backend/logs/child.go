package logs

import "os"

// OpenChild opens the log of a program rehome starts (llama-server,
// kiwix-serve) for it to write, mode 0600 and truncated, and for rehome to
// read back; path "" is an unlinked temporary file named after pattern (as
// os.CreateTemp names it).
func OpenChild(path, pattern string) (*os.File, error) {
	if path == "" {
		f, err := os.CreateTemp("", pattern)
		if err != nil {
			return nil, err
		}
		os.Remove(f.Name())
		return f, nil
	}
	return os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
}
