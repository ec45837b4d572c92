package chatgptexport

// Limits bound what an import reads. The zero value of a field means its
// default (DefaultLimits).
type Limits struct {
	// MaxJSONBytes bounds conversations.json as read (decompressed).
	MaxJSONBytes int64
	// MaxConversationBytes bounds one conversation's JSON.
	MaxConversationBytes int64
	// MaxConversations bounds how many conversations one export holds.
	MaxConversations int
	// MaxNodes bounds the messages (mapping entries) of one conversation,
	// and so the depth of its tree.
	MaxNodes int
	// MaxAlternatives bounds the other branches kept of one conversation.
	MaxAlternatives int
	// MaxEntries bounds the entries of the zip.
	MaxEntries int
	// MaxRatio bounds an entry's decompressed size over its compressed
	// size (a zip bomb), for entries past 1 MiB.
	MaxRatio int64
	// MaxFileBytes bounds one file taken from the zip (an image the user
	// attached, a plot); MaxFilesBytes all of them together.
	MaxFileBytes  int64
	MaxFilesBytes int64
}

// DefaultLimits are the bounds a user's import runs under: past what a
// heavy ChatGPT user's export holds, short of what would fill memory.
func DefaultLimits() Limits {
	return Limits{
		MaxJSONBytes:         8 << 30,
		MaxConversationBytes: 64 << 20,
		MaxConversations:     200_000,
		MaxNodes:             50_000,
		MaxAlternatives:      32,
		MaxEntries:           500_000,
		MaxRatio:             200,
		MaxFileBytes:         32 << 20,
		MaxFilesBytes:        4 << 30,
	}
}

func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	pick := func(v, def int64) int64 {
		if v > 0 {
			return v
		}
		return def
	}
	pickInt := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	return Limits{
		MaxJSONBytes:         pick(l.MaxJSONBytes, d.MaxJSONBytes),
		MaxConversationBytes: pick(l.MaxConversationBytes, d.MaxConversationBytes),
		MaxConversations:     pickInt(l.MaxConversations, d.MaxConversations),
		MaxNodes:             pickInt(l.MaxNodes, d.MaxNodes),
		MaxAlternatives:      pickInt(l.MaxAlternatives, d.MaxAlternatives),
		MaxEntries:           pickInt(l.MaxEntries, d.MaxEntries),
		MaxRatio:             pick(l.MaxRatio, d.MaxRatio),
		MaxFileBytes:         pick(l.MaxFileBytes, d.MaxFileBytes),
		MaxFilesBytes:        pick(l.MaxFilesBytes, d.MaxFilesBytes),
	}
}
