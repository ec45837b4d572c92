package llm

import ()

// Message is one chat message in the OpenAI wire shape.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// Reasoning is what a thinking model thought (reasoning_content on the
	// wire, or a <think> block of the content). It is kept for the user,
	// never sent back and never executed.
	Reasoning  string     `json:"-"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
	// Images are data: URLs shown to a model that reads images, sent as
	// image_url content parts after the text (see vision.go).
	Images []string `json:"-"`
}

// ToolCall is one call of a function by the model.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its arguments as JSON text.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool describes a function the model may call.
type Tool struct {
	Type     string       `json:"type"`
	Function ToolFunction `json:"function"`
}

// ToolFunction is a tool's name, description and JSON-schema parameters.
type ToolFunction struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// ChatRequest is what ChatStream sends.
type ChatRequest struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Tools       []Tool    `json:"tools,omitempty"`
	Temperature *float64  `json:"temperature,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	Stream      bool      `json:"stream"`
}

// Delta is one piece of a streamed answer, for showing it as it comes.
type Delta struct {
	// Content is visible text; Reasoning is thinking (shown folded).
	Content   string `json:"content,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	// ToolCall is set while a tool call's arguments arrive: its index and
	// the fragment of arguments just received.
	ToolCall *ToolCallDelta `json:"tool_call,omitempty"`
}

// ToolCallDelta is a fragment of a streamed tool call.
type ToolCallDelta struct {
	Index     int    `json:"index"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// Reply is a whole streamed answer.
type Reply struct {
	Message      Message `json:"message"`
	FinishReason string  `json:"finish_reason"`
	// Usage, when the server reported it.
	PromptTokens     int `json:"prompt_tokens,omitempty"`
	CompletionTokens int `json:"completion_tokens,omitempty"`
	// GenerationMS and TokensPerSecond, when the server timed the answer
	// itself (llama-server's timings).
	GenerationMS    float64 `json:"generation_ms,omitempty"`
	TokensPerSecond float64 `json:"tokens_per_second,omitempty"`
}
