package llm

import (
	"encoding/json"
	"fmt"

	"rehome/backend/bytesize"
)

// Alternative is another branch of an imported conversation (ChatGPT
// keeps every edit of a question and every regenerated answer as a
// branch of a tree): From is the index of the first exchange of the
// conversation it stands beside, Exchanges what the branch holds from
// there.
type Alternative struct {
	From      int          `json:"from"`
	Exchanges []Transcript `json:"exchanges"`
}

// EncodeKept returns c as it is kept, shortened to its bounds first as
// SaveConversation does (see keep.go); when it does not fit even so, its
// alternatives are dropped, saying so, before it fails with
// ErrConversationFull.
func EncodeKept(c *Conversation) ([]byte, error) {
	c.Questions = len(c.Exchanges)
	size, ok := c.fit()
	if !ok && len(c.Alternatives) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d other branch(es) were left out to keep the conversation within %s", len(c.Alternatives), bytesize.Format(MaxConversationBytes)))
		c.Alternatives = nil
		size, ok = c.fit()
	}
	if !ok {
		return nil, fmt.Errorf("%w: it holds %s, over the %s a conversation keeps", ErrConversationFull,
			bytesize.Format(int64(size)), bytesize.Format(MaxConversationBytes))
	}
	data, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode the conversation: %w", err)
	}
	return data, nil
}

// TitleOf is the title a conversation gets from its first question.
func TitleOf(question string) string { return title(question) }
