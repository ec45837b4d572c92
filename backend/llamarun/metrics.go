package llamarun

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Speed is what the server measured of its own generation so far.
type Speed struct {
	Tokens  float64 `json:"tokens"`
	Seconds float64 `json:"seconds"`
}

// TokensPerSecond is the generation speed, 0 before any token.
func (s Speed) TokensPerSecond() float64 {
	if s.Seconds <= 0 {
		return 0
	}
	return s.Tokens / s.Seconds
}

// Speed reads the server's own counters (/metrics, Prometheus text):
// the tokens generated and the time spent generating them.
func (s *Server) Speed(ctx context.Context) (Speed, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.root+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+s.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Speed{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Speed{}, fmt.Errorf("the model server's /metrics answered %d", resp.StatusCode)
	}
	var sp Speed
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			continue
		}
		switch name {
		case "llamacpp:tokens_predicted_total":
			sp.Tokens = v
		case "llamacpp:tokens_predicted_seconds_total":
			sp.Seconds = v
		}
	}
	return sp, sc.Err()
}
