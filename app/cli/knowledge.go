package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"rehome/backend/bytesize"
	"rehome/backend/core"
	"rehome/backend/knowledge"
)

func knowledgeService(env *cliEnv) (*core.Knowledge, int) {
	return service(env, (*core.Core).Knowledge)
}

func cmdKnowledgeAdd(env *cliEnv, args []string) int {
	fs := env.flags("knowledge add", "knowledge add ASSISTANT FILE... [--json]")
	asJSON := fs.Bool("json", false, "print each file's result as JSON")
	embedModel := fs.String("embed-model", "", "also embed the chunks with this `model` (served at /v1/embeddings: llama-server --embeddings, Ollama, LM Studio); searches then fuse keywords and meaning. Without it the assistant keeps the model its files were embedded with (or keywords alone); one with no knowledge yet gets a carried embedding model (rehome models add), if there is one")
	embedServer := fs.String("embed-server", "http://127.0.0.1:11434/v1", "the embedding model's server `URL`")
	env.addPodmanFlags(fs)
	words, k, code := parseAtLeast(env, fs, args, 2, "knowledge add takes an assistant (id or name) and one or more files", knowledgeService)
	if k == nil {
		return code
	}
	if *embedModel != "" {
		base, err := core.NormalizeBaseURL(*embedServer)
		if err != nil {
			return env.usage("--embed-server: %v", err)
		}
		k.SetEmbedder(core.NewServerEmbedder(base, *embedModel))
		if env.shared != "" {
			defer k.SetEmbedder(nil) // the holder's own adds keep their models
		}
	}
	ctx, cancel := env.interruptible()
	defer cancel()
	res, err := k.Add(ctx, words[0], env.paths(words[1:]), func(p knowledge.Progress) {
		if *asJSON {
			return
		}
		switch p.Stage {
		case "reading":
			fmt.Fprintf(env.stderr, "rehome: [%d/%d] reading %s…\n", p.Index, p.Total, p.File)
		case "done":
			fmt.Fprintf(env.stderr, "rehome: [%d/%d] %s\n", p.Index, p.Total, p.Result.Message)
		}
	})
	if *asJSON {
		env.json(res)
	} else if rk, rerr := k.RankingOf(words[0]); rerr == nil && len(res) > 0 {
		fmt.Fprintf(env.stderr, "rehome: %s is searched by %s\n", words[0], rk.Words)
	}
	if err != nil {
		if env.interrupted(err) {
			fmt.Fprintf(env.stderr, "rehome: stopped; the %d file(s) done are kept\n", len(res))
			return exitInterrupted
		}
		return env.fail(err)
	}
	failed := 0
	for _, r := range res {
		if r.State == knowledge.StateFailed {
			failed++
		}
	}
	if failed > 0 {
		if !*asJSON {
			fmt.Fprintf(env.stderr, "rehome: %d of %s not indexed (the others are)\n", failed, counted(len(res), "file", "files"))
		}
		return exitFail
	}
	return exitOK
}

func cmdKnowledgeList(env *cliEnv, args []string) int {
	fs := env.flags("knowledge list", "knowledge list ASSISTANT [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	return runOn(env, fs, args, takes(1, "knowledge list takes one assistant (id or name)", knowledgeService), func(words []string, k *core.Knowledge) int {
		files, err := k.List(words[0])
		return printList(env, files, err, *asJSON, "No knowledge files: add some with `rehome knowledge add ASSISTANT FILE…`.",
			table[knowledge.File]{header: "FILE\tSHA256\tSIZE\tSTATE\tCONTENT", row: knowledgeRow})
	})
}

// knowledgeRow is a file's row in `rehome knowledge list`.
func knowledgeRow(f knowledge.File) string {
	what := f.Counts()
	if f.State != knowledge.StateIndexed {
		what = strings.Join(strings.Fields(f.Reason), " ") // one row a file, whatever a tool wrote (records kept before)
	}
	if f.Original != "" {
		what += " (added as " + f.Original + " from " + filepath.Dir(f.Source) + ")"
	}
	return fmt.Sprintf("%s\t%.12s\t%s\t%s\t%s", f.Name, f.SHA256, bytesize.Format(f.Size), f.State, what)
}

func cmdKnowledgeSearch(env *cliEnv, args []string) int {
	fs := env.flags("knowledge search", "knowledge search ASSISTANT [--top N] [--file NAME] [--json] QUERY")
	asJSON := fs.Bool("json", false, "print JSON: file, page/page_end or section, text, score")
	top := fs.Int("top", 5, "how many `passages`")
	file := fs.String("file", "", "search only this `file` (its name)")
	words, code, ok := parseInterspersed(env, fs, args)
	if !ok {
		return code
	}
	if len(words) < 2 {
		return env.usage("knowledge search takes an assistant (id or name) and a query")
	}
	if *top < 1 || *top > 100 {
		return env.usage("--top must be between 1 and 100")
	}
	k, code := knowledgeService(env)
	if k == nil {
		return code
	}
	hits, err := k.Search(env.context(), words[0], strings.Join(words[1:], " "), *file, *top)
	if code, stop := env.result(hits, err, *asJSON); stop {
		return code
	}
	fmt.Fprintf(env.stderr, "rehome: ranked by %s\n", k.Ranking(words[0]))
	if len(hits) == 0 {
		fmt.Fprintln(env.stdout, "No passage matches.")
		return exitOK
	}
	for i, h := range hits {
		text := strings.Join(strings.Fields(h.Text), " ")
		if r := []rune(text); len(r) > 400 {
			text = string(r[:400]) + "…"
		}
		fmt.Fprintf(env.stdout, "[%d] %s%s (score %.3f)\n    %s\n\n", i+1, h.File, knowledge.Place(h.Page, h.PageEnd, h.Section), h.Score, text)
	}
	return exitOK
}

func cmdKnowledgeRm(env *cliEnv, args []string) int {
	fs := env.flags("knowledge rm", "knowledge rm ASSISTANT FILE|SHA256-PREFIX")
	rm := func(k *core.Knowledge, words []string) (knowledge.File, error) { return k.Remove(words[0], words[1]) }
	start := takes(2, "knowledge rm takes an assistant (id or name) and a file: its name as listed, or the start of its sha256 (see `rehome knowledge list`)", knowledgeService)
	return answer(env, fs, args, start, nil, rm, func(f knowledge.File, _ []string) {
		fmt.Fprintf(env.stderr, "rehome: removed %s (%d chunks) from the assistant's knowledge\n", f.Name, f.Chunks)
	})
}
