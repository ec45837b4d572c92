package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"rehome/backend/bytesize"
	"rehome/backend/core"
	"rehome/backend/llamarun"
	"rehome/backend/localmodels"
)

// localModelsService is the carried models' service; it does not wait for
// the database (see coreService).
func localModelsService(env *cliEnv) (*core.LocalModels, int) {
	return coreService(env, (*core.Core).LocalModels)
}

func cmdModelsAdd(env *cliEnv, args []string) int {
	fs := env.flags("models add", "models add FILE.gguf [--mmproj MMPROJ.gguf] [--copy] [--name NAME] [--embedding] [--json]")
	mmproj := fs.String("mmproj", "", "the model's image projector (`MMPROJ.gguf`): a vision model then reads images (default: the one mmproj*.gguf beside the model, if any)")
	copyIt := fs.Bool("copy", false, "keep rehome's own copy in the data folder (the model keeps working when the file goes)")
	name := fs.String("name", "", "the name to ask it by (default: the file's name without .gguf)")
	embedding := fs.Bool("embedding", false, "mark it an embedding model (for knowledge) when its header does not say so")
	asJSON := fs.Bool("json", false, "print the record as JSON")
	start := takes(1, "give one .gguf file: rehome models add FILE.gguf", localModelsService)
	return runStoppable(env, fs, args, start, func(ctx context.Context, words []string, lm *core.LocalModels) int {
		last := time.Now()
		m, err := lm.Add(ctx, env.path(words[0]), localmodels.AddOptions{Name: *name, Copy: *copyIt, Embedding: *embedding, MMProj: *mmproj, Progress: func(done, total int64) {
			if time.Since(last) > time.Second && total > 0 && !*asJSON {
				last = time.Now()
				fmt.Fprintf(env.stderr, "  %s of %s\n", bytesize.Format(done), bytesize.Format(total))
			}
		}})
		if err != nil {
			return env.failOrStop(err)
		}
		if *asJSON {
			return env.json(m)
		}
		kind := "chat model"
		if m.MMProj != "" {
			kind = "chat model that reads images (projector " + m.MMProj + ", " + bytesize.Format(m.MMProjSize) + ")"
		}
		next := fmt.Sprintf("ask it with: rehome ask --model %s \"…\" (an embedding model? remove it with `rehome models rm %s` and add it again with --embedding)", m.Name, m.Name)
		if m.Embedding {
			kind = "embedding model (for knowledge; " + embeddingWhy(m) + ")"
			next = "it embeds the knowledge of assistants that have none yet (an assistant keeps the model it has; change it with `rehome knowledge add --embed-model`)"
		}
		where := m.Path
		if m.Copied {
			where = "copied to " + m.Path
		}
		fmt.Fprintf(env.stdout, "added %s: %s, %s, %d layers, context %d, %s, %s (%s)\nsha256 %s\n%s\n",
			m.Name, kind, m.Arch, m.Layers, m.ContextLength, m.Quant, bytesize.Format(m.Size), where, m.SHA256, next)
		return exitOK
	})
}

func cmdModelsLocal(env *cliEnv, args []string) int {
	fs := env.flags("models local", "models local [--json]")
	list := func(lm *core.LocalModels) ([]core.CarriedModel, error) { return lm.List(env.context()) }
	return listOf(env, fs, args, localModelsService, list, "No carried models. Add the .gguf file you brought with: rehome models add FILE.gguf",
		table[core.CarriedModel]{header: "NAME\tKIND\tQUANT\tSIZE\tFIT HERE\tMEASURED", row: localModelRow})
}

// localModelRow is a carried model's row in `rehome models local`.
func localModelRow(m core.CarriedModel) string {
	kind := "chat"
	if m.Embedding {
		kind = "embedding"
	}
	fit := m.FitError
	if m.Fit != nil {
		fit = m.Fit.VerdictText
	}
	measured := "-"
	if m.Measured != nil {
		measured = fmt.Sprintf("%.1f tok/s (%s)", m.Measured.TokensPerSecond, m.Measured.Backend)
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", m.Name, kind, m.Quant, bytesize.Format(m.Size), termSafe(fit), measured)
}

func cmdModelsRm(env *cliEnv, args []string) int {
	fs := env.flags("models rm", "models rm NAME")
	rm := func(lm *core.LocalModels, name []string) (localmodels.Model, error) { return lm.Remove(name[0]) }
	start := takes(1, "give the model's name: rehome models rm NAME (see rehome models local)", localModelsService)
	return answer(env, fs, args, start, nil, rm, func(m localmodels.Model, _ []string) {
		sayRemoved(env, m.Name, m.Copied, "and rehome's copy of it", "(your file "+m.Path+" stays)")
	})
}

func cmdModelsServe(env *cliEnv, args []string) int {
	fs := env.flags("models serve", "models serve NAME [--ctx N] [--json]")
	ctxLen := fs.Int("ctx", 0, "context length in tokens (default 8192, or what fits)")
	asJSON := fs.Bool("json", false, "print the server's URL, key and plan as JSON once it is ready")
	words, code, ok := interspersedN(env, fs, args, 1, "give the model's name: rehome models serve NAME (see rehome models local)")
	if !ok {
		return code
	}
	c, err := env.core(core.Options{})
	if err != nil {
		return env.fail(err)
	}
	ctx, cancel := env.interruptible()
	defer cancel()
	plan, err := c.LocalModels().Plan(ctx, words[0], *ctxLen)
	if err != nil {
		return env.fail(err)
	}
	// The database is not held while the model serves: the window and
	// other commands keep working.
	if !env.held(c) {
		c.Close()
		env.c = nil
	}
	d, _ := env.dir()
	logDir := d + "/logs"
	os.MkdirAll(logDir, 0o700)
	srv, err := llamarun.Start(ctx, plan, logDir+"/llama-"+plan.Model.Name+".log", func(msg string) {
		if !*asJSON {
			fmt.Fprintln(env.stderr, msg)
		}
	})
	if err != nil {
		return env.failOrStop(err)
	}
	defer srv.Stop()
	if *asJSON {
		env.json(map[string]any{"url": srv.URL, "api_key": srv.Key, "model": plan.Model.Name, "plan": plan, "log": srv.Log})
	} else {
		fmt.Fprintf(env.stdout, "%s serves %s on %s (%s)\nAPI key: %s\nfor example: curl -H 'Authorization: Bearer %s' %s/models\nCtrl+C stops it.\n",
			plan.Runtime.Backend, plan.Model.Name, srv.URL, plan.Runtime.Why, srv.Key, srv.Key, srv.URL)
	}
	select {
	case <-ctx.Done():
		fmt.Fprintln(env.stderr, "stopped")
		return exitOK
	case <-srv.Exited():
		return env.fail(fmt.Errorf("the model server stopped by itself; its log: %s", srv.Log))
	}
}

// embeddingWhy says what marked m an embedding model, in words.
func embeddingWhy(m localmodels.Model) string {
	switch {
	case m.EmbeddingBy == "you":
		return "marked by you, --embedding; pooled by its last token"
	case m.EmbeddingBy == "":
		return "its header says so"
	case m.Pooling != "":
		return fmt.Sprintf("its %s says so; pooled by %s, as its header names no pooling", m.EmbeddingBy, poolingWords(m.Pooling))
	}
	return "its " + m.EmbeddingBy + " says so"
}

func poolingWords(p string) string {
	if p == "last" {
		return "its last token"
	}
	return "the mean of its tokens"
}
