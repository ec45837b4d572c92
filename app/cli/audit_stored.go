package cli

// The audits kept: audit list, show, compare, checklist, rules and rm.

import (
	"fmt"
	"io"
	"strings"

	"rehome/backend/audit"
	"rehome/backend/bytesize"
	"rehome/backend/core"
)

func cmdAuditList(env *cliEnv, args []string) int {
	fs := env.flags("audit list", "audit list [-n N] [--json]")
	n := fs.Int("n", 0, "show at most N audits (0: all)")
	list := func(a *core.Audits) ([]audit.Record, error) { return a.List(*n) }
	return listOf(env, fs, args, auditService, list, "No audits yet: run `rehome audit --assistant ID` or `rehome audit --features ...`.",
		table[audit.Record]{header: "ID\tWHEN\tVRAM\tASSISTANTS\tVERDICTS", row: auditRow})
}

// auditRow is an audit's row in `rehome audit list`.
func auditRow(r audit.Record) string {
	var names []string
	for _, aa := range r.Assistants {
		names = append(names, aa.Subject.Name)
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%s", r.ID, r.Created.Local().Format("2006-01-02 15:04"), bytesize.Format(r.Machine.VRAMBytes), strings.Join(names, ", "), r.Summary.Headline)
}

func cmdAuditShow(env *cliEnv, args []string) int {
	fs := env.flags("audit show", "audit show ID [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	get := func(a *core.Audits, id []string) (audit.Record, error) { return a.Get(id[0]) }
	return answer(env, fs, args, auditWords(1, "audit show: give one audit id (see `rehome audit list`)"), asJSON, get, func(rec audit.Record, _ []string) { printAudit(env.stdout, rec) })
}

func cmdAuditCompare(env *cliEnv, args []string) int {
	fs := env.flags("audit compare", "audit compare ID ID [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	compare := func(a *core.Audits, ids []string) (audit.Comparison, error) { return a.Compare(ids[0], ids[1]) }
	return answer(env, fs, args, auditWords(2, "audit compare: give two audit ids (see `rehome audit list`)"), asJSON, compare, func(c audit.Comparison, _ []string) { printComparison(env.stdout, c) })
}

// printComparison is `rehome audit compare` in words: what changed
// between two audits, per assistant and capability, and why.
func printComparison(w io.Writer, c audit.Comparison) {
	fmt.Fprintf(w, "From %s (%s) to %s (%s)\n%s\n", c.Older.ID, c.Older.Created.Local().Format("2 Jan 15:04"), c.Newer.ID, c.Newer.Created.Local().Format("2 Jan 15:04"), c.Summary)
	if len(c.Inputs) > 0 {
		fmt.Fprintln(w, "\nInputs:")
		for _, ch := range c.Inputs {
			fmt.Fprintf(w, "  %s: %s → %s\n", ch.Field, ch.From, ch.To)
		}
	}
	for _, a := range c.Assistants {
		fmt.Fprintf(w, "\n%s: %s", a.Name, a.Status)
		if a.VerdictFrom != a.VerdictTo {
			fmt.Fprintf(w, ", %s → %s", label(a.VerdictFrom), label(a.VerdictTo))
		}
		fmt.Fprintln(w)
		if a.VerdictWhy != "" {
			fmt.Fprintf(w, "  because %s\n", a.VerdictWhy)
		}
		for _, cc := range a.Capabilities {
			fmt.Fprintf(w, "  * %s: %s → %s (%s)\n", cc.Name, catLabel(cc.From), catLabel(cc.To), cc.Why)
		}
	}
}

func cmdAuditChecklist(env *cliEnv, args []string) int {
	fs := env.flags("audit checklist", "audit checklist ASSISTANT_ID [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	checklist := func(a *core.Audits, id []string) (audit.Checklist, error) { return a.Checklist(id[0]) }
	start := auditWords(1, "audit checklist: give one assistant id (see `rehome assistants list`)")
	return answer(env, fs, args, start, asJSON, checklist, func(c audit.Checklist, _ []string) {
		fmt.Fprintf(env.stdout, "%s\n(from audit %s)\n", c.Headline, c.AuditID)
		for _, s := range c.Steps {
			fmt.Fprintf(env.stdout, "\n%d. %s\n   %s\n", s.N, s.Title, s.Detail)
			for _, cmd := range s.Commands {
				fmt.Fprintf(env.stdout, "   $ %s\n", cmd)
			}
		}
	})
}

func cmdAuditRules(env *cliEnv, args []string) int {
	fs := env.flags("audit rules", "audit rules [--json | --markdown]")
	asJSON := fs.Bool("json", false, "print the catalog as JSON")
	md := fs.Bool("markdown", false, "print the rules table as Markdown (as in the README)")
	if code, ok := env.parse(fs, args); !ok {
		return code
	}
	cat := audit.DefaultCatalog()
	if *asJSON {
		return env.json(cat)
	}
	if *md {
		io.WriteString(env.stdout, audit.RulesMarkdown(cat))
		return exitOK
	}
	for _, cp := range cat.Capabilities {
		fmt.Fprintf(env.stdout, "%s (%s): %s\n", cp.Name, cp.ID, cp.Category.Label())
		for _, r := range cp.Rules {
			to := r.Category
			if to == "" {
				to = cp.Category
			}
			fmt.Fprintf(env.stdout, "  when %s: %s [%s]\n", audit.DescribeWhen(r.When), to.Label(), r.ID)
		}
	}
	return exitOK
}

func cmdAuditRm(env *cliEnv, args []string) int {
	fs := env.flags("audit rm", "audit rm ID")
	return runOn(env, fs, args, auditWords(1, "audit rm: give one audit id"), func(id []string, audits *core.Audits) int {
		return env.done(audits.Delete(id[0]), "deleted audit %s", id[0])
	})
}

func label(d audit.Decision) string {
	if d == "" {
		return "—"
	}
	return d.Label()
}

func catLabel(c audit.Category) string {
	if c == "" {
		return "not used"
	}
	return c.Label()
}
