package llm

import "errors"

// ErrDropped is wrapped when the connection ended before the answer did.
var ErrDropped = errors.New("the model server closed the connection before the answer was complete")

// ErrTooLarge is wrapped when a model server sent more than rehome keeps
// of one answer (see limits.go): the answer is cut there and says so.
var ErrTooLarge = errors.New("the model server sent more than rehome keeps of one answer")

// ErrDeadline is wrapped when an answer took longer than the whole-answer
// deadline (Client.Deadline).
var ErrDeadline = errors.New("the model server did not finish its answer in time")

// ErrConversationFull is wrapped when a conversation is too large to keep.
var ErrConversationFull = errors.New("the conversation is too large to keep")

// ErrRewind is returned when a conversation has fewer questions than a
// regenerate or an edit asked to take back.
var ErrRewind = errors.New("the conversation has fewer questions than that: open it again and retry")

// ErrPullCancelled is wrapped when a pull was stopped before it ended.
var ErrPullCancelled = errors.New("the pull was cancelled")
