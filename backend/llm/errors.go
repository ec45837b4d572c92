package llm

import "errors"

// ErrRewind is returned when a conversation has fewer questions than a
// regenerate or an edit asked to take back.
var ErrRewind = errors.New("the conversation has fewer questions than that: open it again and retry")
