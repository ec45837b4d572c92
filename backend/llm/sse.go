package llm

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// readSSE reads a Server-Sent Events body of chat.completion.chunk events
// into acc. It accepts "data:" with or without the space, events split
// over several data lines, comments, an "error:" line or an "event: error"
// (llama-server), a {"error":…} chunk (LM Studio, vLLM, OpenAI), and a
// stream that ends without [DONE] once a finish reason came. A line or an
// event longer than MaxEventBytes ends the stream with ErrTooLarge; tick
// is called on each line that is not a comment (keep-alive comments do
// not hold the idle timer off).
func readSSE(r io.Reader, acc *accumulator, tick func()) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []string
	size := 0
	event := ""
	dispatch := func() (done bool, err error) {
		defer func() { data, event, size = nil, "", 0 }()
		if len(data) == 0 {
			return false, nil
		}
		payload := strings.Join(data, "\n")
		if strings.TrimSpace(payload) == "[DONE]" {
			return true, nil
		}
		if event == "error" {
			return false, streamError([]byte(payload))
		}
		return false, acc.chunk([]byte(payload))
	}
	for {
		line, err := readLine(br, MaxEventBytes)
		if line != "" {
			// Blank lines and comments are framing and keep-alives, not
			// answer: they do not count. Nor does an event that carries no
			// answer (an empty delta, a role, usage): the idle timer is
			// reset only by answer text, thinking or a tool call.
			if t := strings.TrimRight(line, "\r\n"); t != "" && !strings.HasPrefix(t, ":") {
				if size += len(line); size > MaxEventBytes {
					return tooLarge("one event", MaxEventBytes)
				}
			}
			before := acc.got
			done, perr := sseLine(strings.TrimRight(line, "\r\n"), &data, &event, dispatch)
			if acc.got > before {
				tick()
			}
			if perr != nil {
				return perr
			}
			if done {
				acc.done = true
				return nil
			}
		}
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				return err
			}
			if !errors.Is(err, io.EOF) {
				return fmt.Errorf("%w: %v", ErrDropped, err)
			}
			if done, derr := dispatch(); derr != nil || done {
				return derr
			}
			if acc.finished() {
				return nil
			}
			return fmt.Errorf("%w (no finish reason and no [DONE] came)", ErrDropped)
		}
	}
}

// readLine reads one line with its newline, or fails with ErrTooLarge
// once it passes max bytes (what was read of it is dropped, not kept). A
// comment is read to its end and returned as ":" alone: its words are
// never used.
func readLine(br *bufio.Reader, max int) (string, error) {
	var long []byte
	comment := false
	for {
		part, err := br.ReadSlice('\n')
		if long == nil && !comment && len(part) > 0 && part[0] == ':' {
			comment = true
		}
		if comment {
			if err == bufio.ErrBufferFull {
				continue
			}
			return ":", err
		}
		if len(long)+len(part) > max {
			return "", tooLarge("one line of the event stream", max)
		}
		if err == bufio.ErrBufferFull {
			long = append(long, part...)
			continue
		}
		if long == nil {
			return string(part), err
		}
		return string(append(long, part...)), err
	}
}

// sseLine handles one line of an event stream.
func sseLine(line string, data *[]string, event *string, dispatch func() (bool, error)) (bool, error) {
	switch {
	case line == "":
		return dispatch()
	case strings.HasPrefix(line, ":"):
		// a comment (keep-alive)
	case strings.HasPrefix(line, "data:"):
		*data = append(*data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
	case strings.HasPrefix(line, "error:"):
		// llama-server: `error: {"code":500,"message":…}`.
		return false, streamError([]byte(strings.TrimSpace(strings.TrimPrefix(line, "error:"))))
	case strings.HasPrefix(line, "event:"):
		*event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
	default:
		// A server that sends bare JSON lines, without SSE framing.
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "{") {
			*data = append(*data, t)
			return dispatch()
		}
	}
	return false, nil
}

func streamError(payload []byte) error {
	msg := errorMessage(payload)
	if msg == "" {
		msg = strings.TrimSpace(string(payload))
	}
	return &ServerError{Message: shortMessage(msg), Body: string(payload)}
}
