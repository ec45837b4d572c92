package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"rehome/backend/browse"
	"rehome/backend/bytesize"
	"rehome/backend/core"
)

func browseService(env *cliEnv) (*core.Browse, int) { return service(env, (*core.Core).Browse) }

func cmdLibraryAdd(env *cliEnv, args []string) int {
	fs := env.flags("library add", "library add FILE.zim [--copy] [--name NAME] [--json]")
	copyIt := fs.Bool("copy", false, "keep rehome's own copy in the data folder (the library keeps working when the file goes)")
	name := fs.String("name", "", "the name in zim:// addresses (default: the file's name without .zim, in lower case)")
	asJSON := fs.Bool("json", false, "print the record as JSON")
	start := takes(1, "give one .zim file: rehome library add FILE.zim", browseService)
	return runStoppable(env, fs, args, start, func(ctx context.Context, words []string, b *core.Browse) int {
		last := time.Now()
		lib, err := b.AddLibrary(ctx, env.path(words[0]), browse.AddOptions{Name: *name, Copy: *copyIt, Progress: func(step string, done, total int64) {
			if *asJSON || (total > 0 && time.Since(last) < time.Second) {
				return
			}
			last = time.Now()
			if total > 0 {
				fmt.Fprintf(env.stderr, "rehome: %s: %s of %s\n", step, bytesize.Format(done), bytesize.Format(total))
			} else {
				fmt.Fprintf(env.stderr, "rehome: %s…\n", step)
			}
		}})
		if err != nil {
			return env.failOrStop(err)
		}
		if *asJSON {
			return env.json(lib)
		}
		where := "served from " + lib.Path + " (carry it again if it moves, or add it with --copy)"
		if lib.Copied {
			where = "rehome's copy: " + lib.Path
		}
		fmt.Fprintf(env.stdout, "added %s: %s, %d articles, %s, %s\n", lib.Name, termSafe(lib.Title), lib.Articles, bytesize.Format(lib.Size), where)
		if !lib.FullText {
			fmt.Fprintln(env.stdout, "  it has no full-text index (the ZIM was made without one): articles open, but searching it finds nothing")
		}
		fmt.Fprintf(env.stdout, "search it with: rehome library search \"…\"; ask with: rehome ask --browse \"…\"\n")
		return exitOK
	})
}

func cmdLibraryList(env *cliEnv, args []string) int {
	fs := env.flags("library list", "library list [--json]")
	return listOf(env, fs, args, browseService, (*core.Browse).Libraries, "no library is carried: add a Kiwix .zim file with `rehome library add FILE.zim` (Wikipedia's, for one)",
		table[core.LibraryView]{header: "NAME\tTITLE\tARTICLES\tSIZE\tSEARCH\tFILE", row: libraryRow})
}

// libraryRow is a library's row in `rehome library list`.
func libraryRow(l core.LibraryView) string {
	search := "full text"
	if !l.FullText {
		search = "none"
	}
	file := l.Path
	if l.Problem != "" {
		file = "MISSING: " + l.Problem
	}
	return fmt.Sprintf("%s\t%s\t%d\t%s\t%s\t%s", l.Name, termSafe(l.Title), l.Articles, bytesize.Format(l.Size), search, termSafe(file))
}

func cmdLibrarySearch(env *cliEnv, args []string) int {
	fs := env.flags("library search", "library search [--library NAME] [--web] [--top N] [--json] WORDS")
	name := fs.String("library", "", "search this library alone")
	web := fs.Bool("web", false, "search the web too, with the engine of Settings → Browsing")
	top := fs.Int("top", 8, "most `hits`")
	asJSON := fs.Bool("json", false, "print the hits as JSON")
	words, code, ok := parseInterspersed(env, fs, args)
	if !ok {
		return code
	}
	query := strings.TrimSpace(strings.Join(words, " "))
	if query == "" {
		return env.usage("give words to search: rehome library search WORDS")
	}
	b, code := browseService(env)
	if b == nil {
		return code
	}
	ctx, cancel := env.interruptible()
	defer cancel()
	start := time.Now()
	res, err := b.Search(ctx, query, browse.SearchOptions{Top: *top, Library: *name, Web: *web})
	if err != nil {
		return env.failOrStop(err)
	}
	if *asJSON {
		return env.json(res)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(env.stderr, "rehome: %s\n", termSafe(n))
	}
	fmt.Fprintf(env.stderr, "rehome: searched %s in %d ms\n", strings.Join(res.Where, " and "), time.Since(start).Milliseconds())
	if len(res.Hits) == 0 {
		fmt.Fprintln(env.stdout, "nothing found: search with other words")
	}
	for i, h := range res.Hits {
		fmt.Fprintf(env.stdout, "[%d] %s\n    %s (%s)\n    %s\n", i+1, termSafe(h.Title), termSafe(h.URL), termSafe(h.Source), termSafe(h.Snippet))
	}
	return exitOK
}

func cmdLibraryOpen(env *cliEnv, args []string) int {
	fs := env.flags("library open", "library open [--json] zim://LIBRARY/PATH|URL")
	asJSON := fs.Bool("json", false, "print the article as JSON")
	env.addPodmanFlags(fs)
	return runStoppable(env, fs, args, takes(1, "give one address: rehome library open zim://LIBRARY/PATH", browseService), func(ctx context.Context, words []string, b *core.Browse) int {
		a, err := b.Open(ctx, words[0], false, false)
		if err != nil {
			return env.failOrStop(err)
		}
		if *asJSON {
			return env.json(a)
		}
		fmt.Fprintf(env.stdout, "%s\n%s\n\n%s\n", termSafe(a.Title), termSafe(a.Source), termSafe(a.Text))
		for _, n := range a.Notes {
			fmt.Fprintf(env.stderr, "rehome: %s\n", termSafe(n))
		}
		return exitOK
	})
}

func cmdLibraryRm(env *cliEnv, args []string) int {
	fs := env.flags("library rm", "library rm NAME")
	rm := func(b *core.Browse, name []string) (browse.Library, error) { return b.RemoveLibrary(name[0]) }
	start := takes(1, "give the library's name: rehome library rm NAME (see `rehome library list`)", browseService)
	return answer(env, fs, args, start, nil, rm, func(lib browse.Library, _ []string) {
		sayRemoved(env, lib.Name, lib.Copied, "and rehome's copy", "(your file "+termSafe(lib.Path)+" is untouched)")
	})
}

// sayRemoved is the line of a carried file forgotten (a library, a
// model): its name, then withCopy where rehome's copy went with it, else
// withFile (the user's own file, which stays).
func sayRemoved(env *cliEnv, name string, copied bool, withCopy, withFile string) {
	said := withFile
	if copied {
		said = withCopy
	}
	fmt.Fprintf(env.stdout, "removed %s %s\n", name, said)
}

// cmdLibrarySettings is `rehome library settings [KEY=VALUE…]`:
// Settings → Browsing in the terminal.
func cmdLibrarySettings(env *cliEnv, args []string) int {
	fs := env.flags("library settings", "library settings [searxng=URL] [brave-key=-] [lan=on|off] [air-gapped=on|off] [--json]")
	asJSON := fs.Bool("json", false, "print the settings as JSON")
	words, b, code := parseAtLeast(env, fs, args, 0, "", browseService)
	if b == nil {
		return code
	}
	var ch core.BrowsingChange
	for _, w := range words {
		k, v, found := strings.Cut(w, "=")
		if !found {
			return env.usage("%q is not KEY=VALUE (keys: searxng, brave-key, lan, air-gapped)", w)
		}
		switch strings.ToLower(k) {
		case "searxng":
			ch.SearXNG = &v
		case "brave-key":
			if v == "-" {
				line, err := readSecret(env)
				if err != nil {
					return env.fail(err)
				}
				v = line
			} else if v != "" {
				return env.usage("brave-key is read from standard input (brave-key=-), never from the command line, which other users can read; brave-key= clears it")
			}
			ch.BraveKey = &v
		case "lan", "air-gapped":
			on, err := onOff(v)
			if err != nil {
				return env.usage("%s: %v", k, err)
			}
			if k == "lan" {
				ch.AllowLAN = &on
			} else {
				ch.AirGapped = &on
			}
		default:
			return env.usage("%q is not a browsing setting (keys: searxng, brave-key, lan, air-gapped)", k)
		}
	}
	st, err := b.Settings()
	if len(words) > 0 {
		st, err = b.SaveSettings(ch)
	}
	if err != nil {
		return env.fail(err)
	}
	if *asJSON {
		return env.json(st)
	}
	key := "not set"
	if st.HasBraveKey {
		key = "set (not shown)"
	}
	fmt.Fprintf(env.stdout, "SearXNG: %s\nBrave Search API key: %s\nLAN pages: %s\nAir-gapped: %s\n%s\n",
		orNone(st.SearXNG), key, map[bool]string{true: "allowed", false: "refused"}[st.AllowLAN], map[bool]string{true: "yes", false: "no"}[st.AirGapped], st.Words)
	return exitOK
}

func onOff(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "on", "yes", "true", "1":
		return true, nil
	case "off", "no", "false", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is not on or off", v)
}

func orNone(s string) string {
	if s == "" {
		return "not set"
	}
	return s
}
