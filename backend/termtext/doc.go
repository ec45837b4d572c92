// Package termtext is the one filter for outside text shown on a
// terminal: a script's output, a Podman service's error, a GGUF's
// header, an API's answer. Code's output reaching a terminal is shown,
// never obeyed: a script may print escape sequences that clear the
// screen, set the window title, write the clipboard (OSC 52), or erase
// and rewrite lines to fake what rehome said. Like well-behaved tools
// (less, git), rehome shows control characters in caret notation instead
// (ESC as ^[, CSI as ^[[), keeps newlines and tabs, and turns a carriage
// return that would overwrite a line into a new line. Pipes get the bytes
// as they came (Writer wraps only terminals). The CLI wraps its stdout and
// stderr in Writer once; the window's own error line uses it too.
package termtext
