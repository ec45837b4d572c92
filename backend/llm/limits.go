package llm

import (
	"fmt"
	"time"

	"rehome/backend/bytesize"
)

// What rehome keeps of a model server's answer. A model server is a
// program rehome does not control: a broken or hostile one may stream
// without end, send one line of gigabytes, or never finish. rehome reads
// the stream through these bounds, so its memory and its database stay
// small whatever the server does; an answer cut at a bound is kept up to
// the bound and says so (docs/models.md).
const (
	// MaxEventBytes bounds one line of the event stream, and one event's
	// data lines together.
	MaxEventBytes = 2 << 20
	// MaxTextBytes bounds an answer's visible text.
	MaxTextBytes = 1 << 20
	// MaxReasoningBytes bounds an answer's thinking.
	MaxReasoningBytes = 1 << 20
	// MaxArgumentsBytes bounds each tool call's arguments (the code of a
	// cell).
	MaxArgumentsBytes = 256 << 10
	// MaxToolCalls bounds the tool calls of one answer.
	MaxToolCalls = 16
	// MaxReplyBytes bounds all of one answer that is kept: text,
	// thinking and tool calls together.
	MaxReplyBytes = 2 << 20
	// MaxWireBytes bounds what is read of one answer's stream in all,
	// framing and keep-alive comments included.
	MaxWireBytes = 64 << 20
	// MaxTranscriptBytes bounds what one question keeps over all its
	// turns (text, thinking, code and outputs); the loop stops there.
	MaxTranscriptBytes = 4 << 20
	// MaxConversationBytes bounds a kept conversation: older exchanges
	// are shortened to fit, and a conversation that still does not fit
	// is not saved (start a new one).
	MaxConversationBytes = 16 << 20
)

// DefaultDeadline bounds one answer of the model server from the request
// to its last byte, whatever the server sends meanwhile (a CPU model
// writing a long answer takes minutes; half an hour is more than any
// answer here needs).
const DefaultDeadline = 30 * time.Minute

// DefaultIdleTimeout ends a stream that sends no event for this long
// (a large prompt on a CPU takes a while before the first token).
// Keep-alive comments do not count as events.
const DefaultIdleTimeout = 5 * time.Minute

// tooLarge says which bound an answer crossed.
func tooLarge(what string, limit int) error {
	return fmt.Errorf("%w: more than %s of %s; rehome cut the answer there (a model repeating itself, or a server that is not a model server: ask again, or try another model)",
		ErrTooLarge, bytesize.Format(int64(limit)), what)
}
