package sandboxexec

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"rehome/backend/llm"
	"rehome/internal/testsupport/llamatest"
	"rehome/sandbox"
)

// realQuestion is a question about a CSV that ships inside the sandbox
// image (statsmodels' and scikit-learn's datasets). truth is Python that
// prints the right answer; the answer counts when it holds that number
// (within 1%) or, for a name, that word.
type realQuestion struct {
	file, question, truth string
}

var realQuestions = []realQuestion{
	{"statsmodels/datasets/longley/longley.csv", "What is the mean of TOTEMP?", "print(df['TOTEMP'].mean())"},
	{"statsmodels/datasets/nile/nile.csv", "In which year was the Nile's volume lowest?", "print(int(df.loc[df['volume'].idxmin(), 'year']))"},
	{"statsmodels/datasets/sunspots/sunspots.csv", "Which year had the highest SUNACTIVITY?", "print(int(df.loc[df['SUNACTIVITY'].idxmax(), 'YEAR']))"},
	{"statsmodels/datasets/stackloss/stackloss.csv", "What is the average STACKLOSS?", "print(df['STACKLOSS'].mean())"},
	{"statsmodels/datasets/statecrime/statecrime.csv", "Which state has the highest murder rate?", "print(df.loc[df['murder'].idxmax(), 'state'])"},
	{"statsmodels/datasets/engel/engel.csv", "What is the correlation between income and foodexp?", "print(df['income'].corr(df['foodexp']))"},
	{"statsmodels/datasets/co2/co2.csv", "How many values are missing in the co2 column?", "print(int(df['co2'].isna().sum()))"},
	{"statsmodels/datasets/copper/copper.csv", "What is the maximum WORLDCONSUMPTION?", "print(df['WORLDCONSUMPTION'].max())"},
	{"statsmodels/datasets/fair/fair.csv", "What is the mean of the affairs column?", "print(df['affairs'].mean())"},
	{"sklearn/datasets/data/wine_data.csv", "How many rows does this file have, not counting its first line?", "print(len(df))"},
}

// TestRealModelQuestions runs the loop against a real instruct model
// served by llama-server: ten questions with known answers (computed in
// the sandbox by reference code), printing accuracy and seconds per
// answer. Opt-in: REHOME_TEST_MODEL=/path/model.gguf; llama-server from
// REHOME_LLAMA_SERVER or the cached build (`make llama`), started by
// package llamatest.
func TestRealModelQuestions(t *testing.T) {
	modelPath := os.Getenv("REHOME_TEST_MODEL")
	if modelPath == "" {
		t.Skip("skipped: set REHOME_TEST_MODEL=/path/model.gguf to run the loop against a real model")
	}
	e := engine(t)
	bin, err := llamatest.Binary()
	if err != nil {
		t.Fatalf("REHOME_TEST_MODEL is set but there is no llama-server (%v): `make llama` builds it, or set REHOME_LLAMA_SERVER", err)
	}
	// llamatest's server, with a context and threads for a real model.
	threads := strconv.Itoa(max(1, runtime.NumCPU()-1))
	srv, err := llamatest.StartModel(bin, modelPath, "-c", "8192", "--threads", threads, "--threads-batch", threads)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	base := srv.URL
	ctx := context.Background()
	models, err := (&llm.Client{BaseURL: base}).Models(ctx)
	if err != nil || len(models) == 0 {
		t.Fatalf("llama-server lists no model: %v", err)
	}
	right, total := 0, time.Duration(0)
	for i, q := range realQuestions {
		name := filepath.Base(q.file)
		// Reference: copy the dataset out of the image and compute the answer.
		dir := t.TempDir()
		ref := fmt.Sprintf("import pandas as pd, shutil\nsrc = '/usr/lib/python3/dist-packages/%s'\nshutil.copy(src, '/mnt/data/%s')\ndf = pd.read_csv(src%s)\n%s\n",
			q.file, name, map[bool]string{true: ", skiprows=1", false: ""}[strings.HasPrefix(q.file, "sklearn")], q.truth)
		res, err := e.Run(ctx, sandbox.RunRequest{Code: ref, OutputDir: dir, Limits: sandbox.Limits{Timeout: 2 * time.Minute}.WithDefaults()}, func(sandbox.Progress) {})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("reference for %s: %v %+v", name, err, res)
		}
		truth := strings.TrimSpace(res.Stdout)
		csv := filepath.Join(dir, name)
		fi, err := llm.DescribeFile(csv)
		if err != nil {
			t.Fatal(err)
		}
		x := &Session{Engine: e, Request: sandbox.SessionRequest{InputPath: csv, Limits: sandbox.Limits{Timeout: 2 * time.Minute}, Dir: filepath.Join(t.TempDir(), "session")}}
		l := &llm.Loop{Client: &llm.Client{BaseURL: base}, Model: models[0].ID, Files: []llm.FileInfo{fi}, Exec: x}
		qctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		start := time.Now()
		tr := l.Ask(qctx, q.question)
		cancel()
		if err := x.Close(ctx); err != nil {
			t.Errorf("close the session: %v", err)
		}
		took := time.Since(start)
		total += took
		ok := answerHolds(tr.Answer, truth)
		if ok {
			right++
		}
		fmt.Printf("%2d %-5v %6.1fs %-14s %-55q truth %s; answer %.120q (%s, %d cells)\n", i+1, ok, took.Seconds(), name, q.question, truth, tr.Answer, tr.Stopped, len(tr.Cells()))
	}
	fmt.Printf("real model %s: %d/%d right, %.1f s per answer\n", filepath.Base(modelPath), right, len(realQuestions), total.Seconds()/float64(len(realQuestions)))
}

var number = regexp.MustCompile(`-?\d[\d,]*\.?\d*(?:[eE][-+]?\d+)?`)

// answerHolds reports whether answer states truth: a number within 1%
// (or equal when the truth is a whole number), or the truth's words.
func answerHolds(answer, truth string) bool {
	want, err := strconv.ParseFloat(truth, 64)
	if err != nil {
		return strings.Contains(strings.ToLower(answer), strings.ToLower(truth))
	}
	for _, m := range number.FindAllString(answer, -1) {
		got, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
		if err != nil {
			continue
		}
		whole := !strings.ContainsAny(truth, ".eE")
		if got == want || (!whole && want != 0 && math.Abs(got-want)/math.Abs(want) < 0.01) {
			return true
		}
	}
	return false
}

func TestAnswerHolds(t *testing.T) {
	for _, tc := range []struct {
		answer, truth string
		want          bool
	}{
		{"The mean is 65,317.0 people.", "65317.0", true},
		{"About 0.91.", "0.9109", true},
		{"It was 1913.", "1913", true},
		{"It was 1914.", "1913", false},
		{"District of Columbia has the highest.", "District of Columbia", true},
		{"No idea.", "17.5", false},
	} {
		if got := answerHolds(tc.answer, tc.truth); got != tc.want {
			t.Errorf("answerHolds(%q, %q) = %v", tc.answer, tc.truth, got)
		}
	}
}
