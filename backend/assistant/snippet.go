package assistant

import _ "embed"

// ChatGPTSnippet is the script a user pastes into the browser's console
// on chatgpt.com, signed in, to save their own GPTs (the owner's view:
// instructions, action schemas, file names) as one JSON file that
// ImportJSON reads: {"list": {"items": [{"resource": GPT}, …]}}. It
// calls GET /api/auth/session (the page's own token, which stays in the
// page), GET /backend-api/gizmos/discovery/mine (the owner's list, page by
// page) and GET /backend-api/gizmos/{id} for each GPT. rehome itself
// never talks to OpenAI. docs/chatgpt-export.md shows the same text.
//
//go:embed chatgpt_export.js
var ChatGPTSnippet string
