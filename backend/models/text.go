package models

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"rehome/backend/bytesize"
)

// WriteText prints the estimate for a terminal: each term with its
// arithmetic, the verdict and the largest context that fits.
func (r FitResult) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s, %d tokens, %s KV cache\non %s\n\n", r.ModelName, r.Quant, r.Context, r.KVCache, r.Machine.Description)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, t := range r.Terms {
		formula := t.Formula
		if t.Key == "total" {
			formula = ""
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Label, bytesize.Format(int64(t.Bytes)), formula)
	}
	tw.Flush()
	fmt.Fprintf(&b, "\n%s.\n", r.VerdictText)
	if r.Verdict == VerdictGPU || r.Verdict == VerdictPartial {
		fmt.Fprintf(&b, "On the GPU: %s; in RAM: %s.\n", bytesize.Format(int64(r.VRAMNeededBytes)), bytesize.Format(int64(r.RAMNeededBytes)))
	}
	where := map[string]string{"vram": "fully in VRAM", "ram": "in RAM"}[r.MaxContextIn]
	if r.MaxContext > 0 {
		fmt.Fprintf(&b, "Largest context that fits %s: %d tokens.\n", where, r.MaxContext)
	} else {
		fmt.Fprintf(&b, "No context fits %s at this quantization.\n", where)
	}
	fmt.Fprintf(&b, "Download: about %.1f GB (%s).\n", float64(r.FileBytes)/1e9, bytesize.Format(int64(r.FileBytes)))
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCatalog prints the models as a table.
func WriteCatalog(w io.Writer, all []Model) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPARAMETERS\tKIND\tCONTEXT\tTOOLS\tOLLAMA\tQUANTIZATIONS\tTAGS")
	for _, m := range all {
		kind := "dense"
		if m.MoE() {
			kind = fmt.Sprintf("MoE %d/%d, %s active", m.ExpertsUsed, m.Experts, fmtParams(m.ParamsActive))
		}
		tools, tag := "no", m.Ollama
		if m.Tools {
			tools = "yes"
		}
		if tag == "" {
			tag = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", m.ID, fmtParams(m.ParamsTotal), kind, m.MaxContext, tools, tag, strings.Join(m.Quants, " "), strings.Join(m.Tags, ","))
	}
	return tw.Flush()
}

// WritePicks prints a ranked list of models for a machine.
func WritePicks(w io.Writer, mach Machine, ctx int, picks []Pick) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Best models for %s, at %d tokens of context:\n\n", mach.Description, ctx)
	if len(picks) == 0 {
		b.WriteString("  None fits well. Try a smaller context (--ctx), or plan with more memory (--vram, --ram).\n")
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, p := range picks {
		fmt.Fprintf(tw, "  %d.\t%s\t%s\t%s\t%s\n", p.Rank, p.Model.ID, p.Result.Quant, bytesize.Format(int64(p.Result.TotalBytes)), p.Result.VerdictText)
	}
	tw.Flush()
	if len(picks) > 0 {
		b.WriteString("\nThe arithmetic for one: rehome fit --model ID --quant Q --ctx N\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
