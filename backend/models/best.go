package models

import (
	"fmt"
	"math"
	"sort"

	"rehome/backend/bytesize"
)

// Pick is one model recommended for a machine.
type Pick struct {
	Rank   int       `json:"rank"`
	Model  Model     `json:"model"`
	Result FitResult `json:"result"`
	Score  float64   `json:"score"`
	Why    string    `json:"why"`
}

// Limits of a recommendation: on a GPU, use at most 95% of VRAM; on a CPU,
// read at most 8 GB per token (about 5 tokens/s on dual-channel DDR5).
const (
	bestHeadroom = 0.95
	cpuMaxRead   = 8e9
)

// bestQuants are the quantizations worth recommending, best first.
var bestQuants = []string{"Q8_0", "MXFP4", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M"}

// Best ranks the models that run well on mach at ctx tokens: on a GPU
// those that fit fully in VRAM, without one those that fit in RAM. Each
// model appears once, at its best quantization that fits. The score is
// the model's effective size (for a mixture of experts the geometric mean
// of total and active parameters) times the quality its quantization
// keeps; on a CPU it is divided by how much must be read per token, since
// memory bandwidth limits CPU speed, and models that read more than 8 GB per
// token are left out as too slow.
func Best(all []Model, mach Machine, ctx, n int) []Pick {
	want := VerdictCPU
	if mach.GPUs > 0 && mach.VRAMBytes > 0 {
		want = VerdictGPU
	}
	var picks []Pick
	for _, m := range all {
		best := bestOf(m, mach, min(ctx, m.MaxContext), want)
		if best != nil {
			// The chosen one gets the full estimate, notes and all.
			if full, err := Fit(best.Model, best.Result.Quant, Options{Context: best.Result.Context}, mach); err == nil {
				best.Result = full
			}
			picks = append(picks, *best)
		}
	}
	sort.SliceStable(picks, func(i, j int) bool { return picks[i].Score > picks[j].Score })
	if len(picks) > n {
		picks = picks[:n]
	}
	for i := range picks {
		picks[i].Rank = i + 1
	}
	return picks
}

// bestOf is m at its best quantization for mach, or nil when none runs
// well. Its reason names the figures, and, when the fit table (which
// shows the best quantization that fits) gives another one, why not
// that one: too slow on a CPU, too little VRAM left on a GPU.
func bestOf(m Model, mach Machine, c int, want string) *Pick {
	var best *Pick
	var top *FitResult // the first quantization that fits: the table's
	for _, q := range bestQuants {
		if !containsFold(m.Quants, q) {
			continue
		}
		r, err := quickFit(m, q, Options{Context: c}, mach)
		if err != nil || r.Verdict != want {
			continue
		}
		if top == nil {
			top = &r
		}
		// Leave room for the desktop and other programs on a GPU.
		if want == VerdictGPU && float64(r.VRAMNeededBytes) > bestHeadroom*float64(mach.VRAMBytes) {
			continue
		}
		active := readPerToken(m, r.WeightsBytes)
		if want == VerdictCPU && active > cpuMaxRead {
			continue
		}
		eff := float64(m.ParamsText)
		if m.MoE() {
			eff = math.Sqrt(float64(m.ParamsText) * float64(m.ParamsActive))
		}
		score := eff / 1e9 * schemes[q].quality
		why := fmt.Sprintf("needs %s of %s", bytesize.Format(r.VRAMNeededBytes), describeBudget(mach))
		if want == VerdictCPU {
			why = fmt.Sprintf("needs %s of %s", bytesize.Format(r.RAMNeededBytes), describeBudget(mach))
			score /= 1 + active/4e9
			why += fmt.Sprintf("; reads about %.1f GB per token: %s", active/1e9, r.CPUSpeed.Words())
		}
		if best == nil || score > best.Score {
			best = &Pick{Model: m, Result: r, Score: score, Why: why}
		}
	}
	if best != nil && top != nil && top.Quant != best.Result.Quant {
		best.Why += "; " + whyNotTop(m, *top, mach)
	}
	return best
}

// whyNotTop says why the best quantization that fits is not the one
// recommended.
func whyNotTop(m Model, top FitResult, mach Machine) string {
	if top.CPUSpeed != nil {
		return fmt.Sprintf("%s fits too (%s), at a higher quality, but reads %.1f GB per token: %s",
			top.Quant, bytesize.Format(top.RAMNeededBytes), readPerToken(m, top.WeightsBytes)/1e9, top.CPUSpeed.Words())
	}
	if float64(top.VRAMNeededBytes) <= bestHeadroom*float64(mach.VRAMBytes) {
		return fmt.Sprintf("%s fits too (%s), at a lower score for its size", top.Quant, bytesize.Format(top.VRAMNeededBytes))
	}
	return fmt.Sprintf("%s fits too (%s) but would leave less than %d%% of the %s free for the desktop and other programs",
		top.Quant, bytesize.Format(top.VRAMNeededBytes), int(math.Round((1-bestHeadroom)*100)), describeBudget(mach))
}

func describeBudget(m Machine) string {
	if m.GPUs > 0 && m.VRAMBytes > 0 {
		return bytesize.Format(m.VRAMBytes) + " VRAM"
	}
	return bytesize.Format(m.UsableRAM()) + " usable RAM"
}
