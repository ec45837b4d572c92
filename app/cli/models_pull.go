package cli

import (
	"fmt"
	"time"

	"rehome/backend/core"
)

// cmdModelsPull has the Ollama server on this machine pull a catalog model
// (core.Pulls): rehome shows Ollama's progress; Ctrl-C stops the pull
// (Ollama keeps what it has). Without Ollama it says which file to carry.
func cmdModelsPull(env *cliEnv, args []string) int {
	fs := env.flags("models pull", "models pull NAME [--json]  (NAME: a catalog id or an Ollama tag)")
	asJSON := fs.Bool("json", false, "print the last progress as JSON")
	words, code, ok := interspersedN(env, fs, args, 1, "give one model: rehome models pull NAME (a catalog id from `rehome models`, or an Ollama tag)")
	if !ok {
		return code
	}
	pulls := env.sandboxCore().Pulls()
	t, err := pulls.Target(words[0])
	if err != nil {
		return env.fail(err)
	}
	ctx, cancel := env.interruptible()
	defer cancel()
	if !*asJSON {
		fmt.Fprintf(env.stderr, "rehome: Ollama pulls %s (rehome downloads nothing itself)\n", t.Tag)
	}
	var shown time.Time
	status, pct := "", 0.0
	last, err := pulls.Pull(ctx, words[0], func(p core.PullProgress) {
		if *asJSON {
			return
		}
		// A line when the step changes, and within one blob's download
		// every 5% or at most one a second.
		if p.Status != status || p.Percent-pct >= 5 || time.Since(shown) > time.Second {
			status, shown, pct = p.Status, time.Now(), p.Percent
			fmt.Fprintf(env.stderr, "  %s\n", p.Text)
		}
	})
	if err != nil {
		return env.failOrStop(err)
	}
	if *asJSON {
		return env.json(last)
	}
	fmt.Fprintf(env.stdout, "%s is pulled (%.1f GiB): Ollama serves it now (`rehome llm status` lists it)\n", t.Tag, float64(last.Total)/(1<<30))
	return 0
}
