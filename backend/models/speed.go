package models

import "fmt"

// A CPU reads every active weight from RAM once per token, so a model's
// speed there is bounded by memory bandwidth: tokens/s ≈ bandwidth /
// bytes read per token. rehome does not measure the bandwidth; the range
// is what llama.cpp reaches on a desktop's two memory channels, DDR4 to
// DDR5 (about 20 to 40 GB/s of the 51 to 90 GB/s on paper). The Ask
// screen's estimate for a server's model (llm.FitOf) is the low end.
const (
	CPUBandwidthLow  = 20e9
	CPUBandwidthHigh = 40e9
)

// CPUSpeed estimates the tokens per second of a model run on the CPU.
type CPUSpeed struct {
	// ReadBytes is what one token reads: the weights, or a mixture of
	// experts' active share of them.
	ReadBytes int64   `json:"read_bytes"`
	Low       float64 `json:"low"`  // tokens/s at CPUBandwidthLow
	High      float64 `json:"high"` // tokens/s at CPUBandwidthHigh
	Basis     string  `json:"basis"`
}

// readPerToken is what one token of m reads of weights of that size.
func readPerToken(m Model, weights int64) float64 {
	if m.ParamsText <= 0 || m.ParamsActive <= 0 {
		return float64(weights)
	}
	return float64(weights) * float64(m.ParamsActive) / float64(m.ParamsText)
}

// cpuSpeed is the estimate for r when it runs on the CPU alone; nil on a GPU.
func cpuSpeed(m Model, r FitResult) *CPUSpeed {
	if r.Verdict != VerdictCPU || r.WeightsBytes <= 0 {
		return nil
	}
	read := readPerToken(m, r.WeightsBytes)
	return &CPUSpeed{
		ReadBytes: int64(read),
		Low:       CPUBandwidthLow / read,
		High:      CPUBandwidthHigh / read,
		Basis:     fmt.Sprintf("reads about %.1f GB per token; at 20 to 40 GB/s of memory bandwidth (two channels, DDR4 to DDR5; not measured here)", read/1e9),
	}
}

// Words says the estimate in a few words: "about 3–6 tokens/s".
func (s CPUSpeed) Words() string {
	return fmt.Sprintf("about %s–%s tokens/s", tps(s.Low), tps(s.High))
}

func tps(v float64) string {
	if v >= 10 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
