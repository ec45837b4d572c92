package llm

import (
	"encoding/json"
	"fmt"
	"strings"

	"rehome/backend/store"
)

// SearchConversations returns the summaries, newest first, of up to limit
// conversations (all when limit <= 0) whose title, assistant, model,
// questions or answers hold every word of query (any case). Each record is
// bounded when kept (MaxConversationBytes), so a search reads at most that
// much per conversation.
func SearchConversations(st *store.Store, query string, limit int) ([]ConversationSummary, error) {
	words := strings.Fields(strings.ToLower(query))
	if len(words) == 0 {
		return ListConversations(st, limit)
	}
	out := []ConversationSummary{}
	err := st.Each(store.Conversations, func(id string, raw []byte) (bool, error) {
		var c struct {
			Title         string `json:"title"`
			AssistantName string `json:"assistant_name"`
			Model         string `json:"model"`
			Exchanges     []struct {
				Question string `json:"question"`
				Answer   string `json:"answer"`
				Turns    []struct {
					Text string `json:"text"`
				} `json:"turns"`
			} `json:"exchanges"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return false, fmt.Errorf("read conversation %s: %w", id, err)
		}
		var b strings.Builder
		for _, s := range []string{c.Title, c.AssistantName, c.Model} {
			b.WriteString(s + "\n")
		}
		for _, x := range c.Exchanges {
			b.WriteString(x.Question + "\n" + x.Answer + "\n")
			for _, t := range x.Turns {
				b.WriteString(t.Text + "\n")
			}
		}
		hay := strings.ToLower(b.String())
		for _, w := range words {
			if !strings.Contains(hay, w) {
				return true, nil
			}
		}
		return collectSummary(&out, id, raw, limit)
	})
	return out, err
}
