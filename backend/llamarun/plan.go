package llamarun

import (
	"fmt"
	"strconv"

	"rehome/backend/bytesize"
	"rehome/backend/localmodels"
	"rehome/backend/models"
)

// DefaultContext is the context asked for when the caller names none: what
// an ask with a few files and cells needs.
const DefaultContext = 8192

// minContext is the smallest context worth starting a model with.
const minContext = 2048

// Plan is how a model is started on this machine, with the reasons.
type Plan struct {
	Model   localmodels.Model `json:"model"`
	Runtime Runtime           `json:"runtime"`
	// Context is the context length (-c); GPULayers the layers offloaded
	// (-ngl: 0 on the CPU, Layers+1 for all of them with the output).
	Context   int `json:"context"`
	GPULayers int `json:"gpu_layers"`
	Layers    int `json:"layers"`
	// Fit is the estimate the plan follows.
	Fit     models.FitResult `json:"fit"`
	Reasons []string         `json:"reasons"`
}

// MakePlan fits m on mach at the context wanted (0: DefaultContext, cut to
// what the model was trained for), halving the context until it fits, and
// offloads what the fit says the GPU holds (nothing with the CPU build).
func MakePlan(m localmodels.Model, rt Runtime, mach models.Machine, want int) (Plan, error) {
	spec, layout, err := m.Spec()
	if err != nil {
		return Plan{}, err
	}
	if want <= 0 {
		want = DefaultContext
	}
	p := Plan{Model: m, Runtime: rt, Layers: spec.Layers}
	ctx := want
	if spec.MaxContext > 0 && ctx > spec.MaxContext {
		ctx = spec.MaxContext
		p.Reasons = append(p.Reasons, fmt.Sprintf("context %d: the model was trained for %d", ctx, spec.MaxContext))
	}
	if rt.Backend == BackendCPU {
		mach.VRAMBytes, mach.GPUs = 0, 0
	}
	if m.MMProj != "" {
		// The projector loads beside the model (on the GPU when there is
		// one): what is left for the model is less by its size.
		if mach.VRAMBytes > 0 {
			mach.VRAMBytes = max(0, mach.VRAMBytes-m.MMProjSize)
		} else {
			mach.RAMBytes = max(0, mach.RAMBytes-m.MMProjSize)
		}
		p.Reasons = append(p.Reasons, "its image projector takes "+bytesize.Format(m.MMProjSize)+" beside it")
	}
	for {
		fit, err := models.FitLayout(spec, layout, models.Options{Context: ctx}, mach)
		if err != nil {
			return Plan{}, err
		}
		if fit.Verdict != models.VerdictNone {
			p.Fit, p.Context = fit, ctx
			break
		}
		if ctx/2 < minContext {
			return Plan{}, fmt.Errorf("%w: %s needs %s even at a %d-token context; %s", ErrNoFit, m.Name, bytesize.Format(fit.TotalBytes), ctx, mach.Description)
		}
		ctx /= 2
	}
	if p.Context < want && len(p.Reasons) == 0 {
		p.Reasons = append(p.Reasons, fmt.Sprintf("context %d, not %d: more does not fit (%s)", p.Context, want, mach.Description))
	}
	switch p.Fit.Verdict {
	case models.VerdictGPU:
		p.GPULayers = spec.Layers + 1
		p.Reasons = append(p.Reasons, fmt.Sprintf("all %d layers on the GPU (%s of VRAM)", spec.Layers, bytesize.Format(p.Fit.VRAMNeededBytes)))
	case models.VerdictPartial:
		p.GPULayers = p.Fit.LayersOnGPU
		p.Reasons = append(p.Reasons, fmt.Sprintf("%d of %d layers on the GPU, the rest in RAM (slower)", p.Fit.LayersOnGPU, spec.Layers))
	default:
		p.Reasons = append(p.Reasons, "on the CPU, from RAM ("+bytesize.Format(p.Fit.TotalBytes)+")")
	}
	return p, nil
}

// Args are llama-server's arguments for the plan, less the address and
// the key.
func (p Plan) Args() []string {
	args := []string{"-m", p.Model.Path, "--alias", p.Model.Name, "-c", strconv.Itoa(p.Context),
		"-ngl", strconv.Itoa(p.GPULayers), "-np", "1", "--no-webui", "--metrics",
		// The devices and the layers offloaded in the log (llama-server's
		// default verbosity leaves them out): what a crash report needs.
		"-lv", "4"}
	if p.Model.Embedding {
		if p.Model.Pooling != "" {
			// The header names no pooling type, and llama-server's
			// /v1/embeddings refuses none.
			args = append(args, "--pooling", p.Model.Pooling)
		}
		return append(args, "--embeddings")
	}
	if p.Model.MMProj != "" {
		// The image projector: the server then takes image_url parts.
		args = append(args, "--mmproj", p.Model.MMProj)
	}
	// --jinja: the model's own chat template, which parses its tool calls.
	return append(args, "--jinja")
}
