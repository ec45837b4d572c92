package cli

import (
	"strings"

	"rehome/backend/hardware"
	"rehome/backend/models"
)

// cmdModels is `rehome models` alone (or with its flags first): the
// catalog; its subcommands (commands.go) are the carried models'.
func cmdModels(env *cliEnv, args []string) int {
	fs := env.flags("models", "models [--tag coder|vision|reasoning|moe|chat] [--json] | models COMMAND …")
	asJSON := fs.Bool("json", false, "print JSON (each entry with its id)")
	tag := fs.String("tag", "", "only models with this tag")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	all, err := models.Catalog()
	if err != nil {
		return env.fail(err)
	}
	if *tag != "" {
		var keep []models.Model
		for _, m := range all {
			if m.HasTag(strings.ToLower(*tag)) {
				keep = append(keep, m)
			}
		}
		if len(keep) == 0 {
			return env.usage("no model has the tag %q: use chat, coder, vision, reasoning or moe", *tag)
		}
		all = keep
	}
	if *asJSON {
		return env.json(all)
	}
	if err := models.WriteCatalog(env.stdout, all); err != nil {
		return env.fail(err)
	}
	return exitOK
}

func cmdFit(env *cliEnv, args []string) int {
	fs := env.flags("fit", "fit [--model ID [--quant Q] | --gguf FILE] [--ctx N] [--kv f16|q8_0|q4_0] [--vram 24GiB --ram 64GiB] [--json]")
	var req models.Request
	fs.StringVar(&req.Model, "model", "", "a catalog model id (`rehome models` lists them); without it, rank the best models")
	fs.StringVar(&req.GGUF, "gguf", "", "a local .gguf file instead of a catalog model (only its header is read)")
	fs.StringVar(&req.Quant, "quant", "", "quantization: F16, Q8_0, Q6_K, Q5_K_M, Q4_K_M (default), IQ4_XS, Q3_K_M, Q2_K, IQ2_XS, MXFP4")
	fs.IntVar(&req.Context, "ctx", 0, "context length in tokens (default 8192, or the model's maximum if smaller)")
	fs.StringVar(&req.KVCache, "kv", "f16", "KV cache type: f16, q8_0 or q4_0")
	fs.StringVar(&req.VRAM, "vram", "", "plan a purchase: VRAM, e.g. 24GiB (default: detected)")
	fs.StringVar(&req.RAM, "ram", "", "plan a purchase: system RAM, e.g. 64GiB (default: detected)")
	fs.IntVar(&req.GPUs, "gpus", 1, "with --vram: how many GPUs share it")
	fs.BoolVar(&req.Unified, "unified", false, "with --vram: the GPU shares system RAM (Apple silicon, DGX Spark, integrated GPUs)")
	best := fs.Int("best", 5, "without --model: how many models to rank")
	asJSON := fs.Bool("json", false, "print JSON (every term in bytes)")
	h := addHWFlags(fs)
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	if req.Context < 0 {
		return env.usage("--ctx must be a positive number of tokens, such as 8192")
	}
	if req.Quant != "" {
		q, err := models.NormalizeQuant(req.Quant)
		if err != nil {
			return env.usage("--quant: %v", err)
		}
		req.Quant = q
	}
	// Detect unless both figures are given by hand.
	var detected *hardware.Report
	if req.VRAM == "" || req.RAM == "" {
		r, err := h.detect(env)
		if err != nil {
			return env.fail(err)
		}
		detected = &r
	}
	mach, err := req.Machine(detected)
	if err != nil {
		return env.usage("%v", cliError(err))
	}

	if req.Model == "" && req.GGUF == "" {
		return fitBest(env, req.Context, mach, *best, *asJSON)
	}

	if req.Model != "" {
		if _, err := models.Lookup(req.Model); err != nil {
			return env.usage("%v", err)
		}
	}
	res, err := req.Run(mach)
	if err != nil {
		if req.GGUF != "" {
			return env.fail(err)
		}
		return env.usage("%v", err)
	}
	if *asJSON {
		return env.json(res)
	}
	if err := res.WriteText(env.stdout); err != nil {
		return env.fail(err)
	}
	return exitOK
}

// fitBest ranks the catalog's best models for the machine, at ctx tokens
// of context (0: 8192).
func fitBest(env *cliEnv, ctx int, mach models.Machine, best int, asJSON bool) int {
	all, err := models.Catalog()
	if err != nil {
		return env.fail(err)
	}
	if ctx == 0 {
		ctx = 8192
	}
	picks := models.Best(all, mach, ctx, max(best, 1))
	if asJSON {
		return env.json(struct {
			Machine models.Machine `json:"machine"`
			Context int            `json:"context"`
			Best    []models.Pick  `json:"best"`
		}{mach, ctx, nonNil(picks)})
	}
	if err := models.WritePicks(env.stdout, mach, ctx, picks); err != nil {
		return env.fail(err)
	}
	return exitOK
}

func nonNil(p []models.Pick) []models.Pick {
	if p == nil {
		return []models.Pick{}
	}
	return p
}
