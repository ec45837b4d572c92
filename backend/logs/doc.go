// Package logs sets up rehome's structured logging: JSON lines to a
// rotating file in the data directory, and text to stderr when asked. When
// the file cannot be written, at the start or later, the lines go to stderr
// instead, with the reason.
package logs
