package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
)

// Embed asks the server's /v1/embeddings (llama-server started with
// --embeddings, Ollama, LM Studio) for one vector per input, in order.
// A server without embeddings answers with an error status: a
// *ServerError.
func (c *Client) Embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
	resp, err := c.call(ctx, http.MethodPost, "/embeddings", map[string]any{"model": model, "input": inputs})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, statusError(resp.StatusCode, body)
	}
	var v struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("the server's /embeddings answer is not the OpenAI shape: %v", err)
	}
	if len(v.Data) != len(inputs) {
		return nil, fmt.Errorf("the server gave %d embeddings for %d inputs", len(v.Data), len(inputs))
	}
	sort.SliceStable(v.Data, func(i, j int) bool { return v.Data[i].Index < v.Data[j].Index })
	out := make([][]float32, len(v.Data))
	for i, d := range v.Data {
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("the server gave an empty embedding for input %d", i)
		}
		out[i] = d.Embedding
	}
	return out, nil
}
