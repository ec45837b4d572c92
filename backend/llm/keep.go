package llm

import (
	"encoding/json"
	"fmt"

	"rehome/backend/bytesize"
)

// What a kept conversation holds is bounded (MaxTranscriptBytes per
// question, MaxConversationBytes in all): a question over its bound is
// shortened before it is kept — thinking, outputs, code and words cut to
// their head and tail, saying how much was left out — and older
// questions are shortened further when the conversation would pass its
// bound. Nothing rehome shows from the answer as it streamed is lost from
// the screen; only what is kept is shortened, and the exchange says so.

// shortenSteps are the sizes each field is cut to, step by step, until
// an exchange fits its budget: a field already within a step is left as
// it is.
var shortenSteps = []struct{ thinking, output, code, text, answer int }{
	{64 << 10, 64 << 10, 128 << 10, 256 << 10, 1 << 20},
	{8 << 10, 8 << 10, 32 << 10, 32 << 10, 256 << 10},
	{1 << 10, 2 << 10, 8 << 10, 4 << 10, 16 << 10},
	{0, 0, 2 << 10, 1 << 10, 4 << 10},
}

func jsonSize(v any) int {
	data, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(data)
}

// shorten cuts t until it is at most budget bytes as JSON and says so in
// its note; it reports whether t fits.
func (t *Transcript) shorten(budget int) bool {
	size := jsonSize(t)
	if size <= budget {
		return true
	}
	was := size
	for _, st := range shortenSteps {
		for i := range t.Turns {
			tu := &t.Turns[i]
			tu.Reasoning = cutKept(tu.Reasoning, st.thinking)
			tu.Text = cutKept(tu.Text, st.text)
			for j := range tu.Cells {
				c := &tu.Cells[j]
				c.Code = cutKept(c.Code, st.code)
				c.Result.Stdout = cutKept(c.Result.Stdout, st.output)
				c.Result.Stderr = cutKept(c.Result.Stderr, st.output)
				c.Fed = cutKept(c.Fed, st.output)
				if st.output < 64<<10 {
					for k := range c.Result.Files {
						c.Result.Files[k].DataURL = "" // the file stays at its path
					}
				}
			}
		}
		if st.output < 64<<10 {
			for k := range t.Files {
				t.Files[k].DataURL = ""
			}
		}
		t.Answer = cutKept(t.Answer, st.answer)
		t.Question = cutKept(t.Question, max(st.answer, 4<<10))
		if size = jsonSize(t); size <= budget {
			break
		}
	}
	t.Shortened = fmt.Sprintf("rehome kept %s of this exchange's %s (the bound is %s): thinking, outputs and long text were cut to their beginning and end.",
		bytesize.Format(int64(size)), bytesize.Format(int64(was)), bytesize.Format(int64(budget)))
	return size <= budget
}

// cutKept is cut with n 0 meaning "nothing".
func cutKept(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return fmt.Sprintf("(%d bytes left out)", len(s))
	}
	return cut(s, n)
}

// fit shortens the conversation's exchanges, the newest to
// MaxTranscriptBytes and then the oldest first, until it is at most
// MaxConversationBytes; it reports its size.
func (c *Conversation) fit() (int, bool) {
	if n := len(c.Exchanges); n > 0 {
		c.Exchanges[n-1].shorten(MaxTranscriptBytes)
	}
	size := jsonSize(c)
	for i := 0; size > MaxConversationBytes && i < len(c.Exchanges); i++ {
		before := jsonSize(&c.Exchanges[i])
		c.Exchanges[i].shorten(64 << 10)
		size -= before - jsonSize(&c.Exchanges[i])
	}
	return size, size <= MaxConversationBytes
}
