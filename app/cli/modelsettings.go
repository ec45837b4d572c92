package cli

import (
	"flag"
	"fmt"
	"sort"
	"strings"

	"rehome/backend/core"
)

// modelSettingFlags adds --temperature, --context and --system-prompt to
// fs; the function it returns is what was given (after parsing), so that
// a flag not given leaves the saved value.
func modelSettingFlags(fs *flag.FlagSet) func() core.ModelSettings {
	temp := fs.Float64("temperature", 0, "the model's `temperature`, 0 to 2 (default: as saved for the model, else the server's)")
	ctxLen := fs.Int("context", 0, "a carried model's context length in `tokens` (llama-server -c; a served model's server decides)")
	prompt := fs.String("system-prompt", "", "`text` added to the system prompt after the assistant's instructions")
	return func() core.ModelSettings {
		var s core.ModelSettings
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "temperature":
				t := *temp
				s.Temperature = &t
			case "context":
				s.Context = *ctxLen
			case "system-prompt":
				s.SystemPrompt = *prompt
			}
		})
		return s
	}
}

// cmdModelsSettings is `rehome models settings [MODEL] [flags]`: with no
// model, every model's saved settings; with one and no flags, its
// settings; with flags, they are saved over its settings (--clear first
// forgets them).
func cmdModelsSettings(env *cliEnv, args []string) int {
	fs := env.flags("models settings", "models settings [MODEL [--temperature T] [--context N] [--system-prompt TEXT] [--clear]] [--json]")
	given := modelSettingFlags(fs)
	clear := fs.Bool("clear", false, "forget the model's saved settings first")
	asJSON := fs.Bool("json", false, "print JSON")
	words, code, ok := parseInterspersed(env, fs, args)
	if !ok {
		return code
	}
	if len(words) > 1 {
		return env.usage("name one model: rehome models settings MODEL")
	}
	c, err := env.core(core.Options{})
	if err != nil {
		return env.fail(err)
	}
	prefs := c.ModelSettings()
	if len(words) == 0 {
		all, err := prefs.All()
		if err != nil {
			return env.fail(err)
		}
		if *asJSON {
			return env.json(all)
		}
		names := make([]string, 0, len(all))
		for n := range all {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) == 0 {
			fmt.Fprintln(env.stdout, "No model has settings of its own: each asks with the server's (see `rehome models settings MODEL --temperature 0.2`).")
		}
		for _, n := range names {
			printModelSettings(env, n, all[n])
		}
		return 0
	}
	name := words[0]
	s, err := prefs.Get(name)
	if err != nil {
		return env.fail(err)
	}
	if *clear {
		s = core.ModelSettings{}
	}
	if over := given(); *clear || !over.IsZero() {
		if s, err = prefs.Save(name, s.Over(over)); err != nil {
			return env.fail(err)
		}
	}
	if *asJSON {
		return env.json(s)
	}
	printModelSettings(env, name, s)
	return 0
}

func printModelSettings(env *cliEnv, name string, s core.ModelSettings) {
	temp, ctxLen, prompt := "the server's", "the default (a served model: its server's)", "none"
	if s.Temperature != nil {
		temp = fmt.Sprintf("%g", *s.Temperature)
	}
	if s.Context != 0 {
		ctxLen = fmt.Sprintf("%d tokens (a carried model's llama-server -c; a served model's server decides)", s.Context)
	}
	if s.SystemPrompt != "" {
		prompt = fmt.Sprintf("%q", s.SystemPrompt)
	}
	fmt.Fprintf(env.stdout, "%s\n  temperature: %s\n  context: %s\n  system prompt: %s\n", termSafe(name), temp, ctxLen, termSafe(prompt))
}

// settingsLine says which of the model's settings a question goes with
// ("" when none is set and no carried model started).
func settingsLine(s core.ModelSettings, started int) string {
	var parts []string
	if s.Temperature != nil {
		parts = append(parts, fmt.Sprintf("temperature %g", *s.Temperature))
	}
	if started > 0 {
		parts = append(parts, fmt.Sprintf("context %d tokens (llama-server -c %d)", started, started))
	} else if s.Context > 0 {
		parts = append(parts, fmt.Sprintf("context %d tokens asked, the server decides its own", s.Context))
	}
	if s.SystemPrompt != "" {
		parts = append(parts, "its system prompt after the instructions")
	}
	return strings.Join(parts, ", ")
}
