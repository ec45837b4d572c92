package llm

import (
	"fmt"
	"strings"

	"rehome/backend/store"
)

// Rewind takes back the last n questions with their answers (regenerate,
// edit-and-resend): the next question continues from the one before them.
func (c *Conversation) Rewind(n int) error {
	if n < 0 || n > len(c.Exchanges) {
		return fmt.Errorf("take back %d of %d questions: %w", n, len(c.Exchanges), ErrRewind)
	}
	c.Exchanges = c.Exchanges[:len(c.Exchanges)-n]
	return nil
}

// RenameConversation gives a kept conversation the user's title (blank
// goes back to its first question).
func RenameConversation(st *store.Store, id, newTitle string) (*Conversation, error) {
	var c Conversation
	err := st.Modify(store.Conversations, id, &c, func() error {
		if err := store.CheckSchema(store.Conversations, id, c.Schema, ConversationSchema); err != nil {
			return err
		}
		c.Title = title(newTitle)
		if strings.TrimSpace(c.Title) == "" && len(c.Exchanges) > 0 {
			c.Title = title(c.Exchanges[0].Question)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rename the conversation: %w", err)
	}
	return &c, nil
}
