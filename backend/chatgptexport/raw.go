package chatgptexport

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// Raw is one conversation as ChatGPT's export writes it: a tree of
// messages (Mapping, by node id) and the node the user was on.
type Raw struct {
	ID             text             `json:"id"`
	ConversationID text             `json:"conversation_id"`
	Title          *text            `json:"title"`
	CreateTime     epoch            `json:"create_time"`
	UpdateTime     epoch            `json:"update_time"`
	Mapping        map[string]*node `json:"mapping"`
	CurrentNode    text             `json:"current_node"`
	GizmoID        text             `json:"gizmo_id"`
	ModelSlug      text             `json:"default_model_slug"`
	IsArchived     flag             `json:"is_archived"`
}

type node struct {
	ID       text     `json:"id"`
	Message  *message `json:"message"`
	Parent   text     `json:"parent"`
	Children []text   `json:"children"`
}

type message struct {
	ID     text `json:"id"`
	Author struct {
		Role text `json:"role"`
		Name text `json:"name"`
	} `json:"author"`
	CreateTime epoch    `json:"create_time"`
	Content    content  `json:"content"`
	Metadata   metadata `json:"metadata"`
	Recipient  text     `json:"recipient"`
	Status     text     `json:"status"`
}

type content struct {
	Type     text              `json:"content_type"`
	Parts    []json.RawMessage `json:"parts"`
	Text     text              `json:"text"`
	Language text              `json:"language"`
	Result   text              `json:"result"`
	Thoughts []struct {
		Summary text `json:"summary"`
		Content text `json:"content"`
	} `json:"thoughts"`
}

type metadata struct {
	Hidden            flag            `json:"is_visually_hidden_from_conversation"`
	UserSystem        flag            `json:"is_user_system_message"`
	ModelSlug         text            `json:"model_slug"`
	GizmoID           text            `json:"gizmo_id"`
	Citations         json.RawMessage `json:"citations"`
	ContentReferences json.RawMessage `json:"content_references"`
	AggregateResult   json.RawMessage `json:"aggregate_result"`
	Attachments       json.RawMessage `json:"attachments"`
}

// text is a string that reads null, a number or a bool as its text and
// anything else as "", so that one odd field does not refuse a
// conversation.
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || b[0] == 'n' || b[0] == '{' || b[0] == '[':
		*t = ""
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = text(s)
	default:
		*t = text(b)
	}
	return nil
}

// flag is a bool that reads anything but true as false.
type flag bool

func (f *flag) UnmarshalJSON(b []byte) error {
	*f = flag(bytes.Equal(bytes.TrimSpace(b), []byte("true")))
	return nil
}

// epoch is a time as ChatGPT writes it: seconds since 1970 as a number
// (1704629915.775304), sometimes a string; null or nonsense is zero.
type epoch float64

func (e *epoch) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(bytes.TrimSpace(b), `"`))
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1e11 {
		*e = 0
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			*e = epoch(float64(t.UnixNano()) / 1e9)
		}
		return nil
	}
	*e = epoch(f)
	return nil
}

// Time is the epoch as a time, zero for none.
func (e epoch) Time() time.Time {
	if e <= 0 {
		return time.Time{}
	}
	sec, frac := math.Modf(float64(e))
	return time.Unix(int64(sec), int64(frac*1e9)).UTC().Truncate(time.Microsecond)
}

// SourceID is the conversation's id in ChatGPT.
func (r *Raw) SourceID() string {
	if r.ConversationID != "" {
		return string(r.ConversationID)
	}
	return string(r.ID)
}

// TitleText is its title ("" when it has none).
func (r *Raw) TitleText() string {
	if r.Title == nil {
		return ""
	}
	return string(*r.Title)
}
