package sandboxexec

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/backend/llm"
	"rehome/internal/testsupport/llmtest"
	"rehome/sandbox"
)

// engine connects to the real Podman service with the sandbox image, or
// skips (fails with REHOME_REQUIRE_PODMAN=1), like the sandbox tests.
func engine(t *testing.T) *sandbox.Engine {
	t.Helper()
	var err error
	if _, err = exec.LookPath("podman"); err == nil {
		ctx := context.Background()
		var e *sandbox.Engine
		if e, err = sandbox.New(ctx, sandbox.Options{}); err == nil {
			// As the sandbox tests do: the image, then the runtime probe
			// (which may move the engine to another service) before use.
			if err = e.EnsureImage(ctx, nil); err == nil {
				if _, err = e.Runtime(ctx); err == nil {
					t.Cleanup(func() { e.Close() })
					return e
				}
			}
			e.Close()
		}
	}
	if os.Getenv("REHOME_REQUIRE_PODMAN") == "1" {
		t.Fatalf("real-Podman test cannot run: %v", err)
	}
	t.Skipf("no Podman sandbox here (%v); set REHOME_REQUIRE_PODMAN=1 to make this a failure", err)
	return nil
}

// The whole loop against a recorded Ollama with tools, and a recorded
// model without tools, with the cells run in the real sandbox: the code
// reads the CSV at /mnt/data, prints, and the plot comes back as a file.
func TestLoopRealSandbox(t *testing.T) {
	e := engine(t)
	csv, err := filepath.Abs("../testdata/sales.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, scenario := range []string{"ollama-tools", "ollama-no-tools"} {
		t.Run(scenario, func(t *testing.T) {
			rec := llmtest.Replay(t, "../testdata", scenario)
			fi, err := llm.DescribeFile(csv)
			if err != nil {
				t.Fatal(err)
			}
			var runs []*sandbox.CellResult
			x, _ := sessionExec(t, e, csv)
			x.Done = func(_ string, res *sandbox.CellResult) { runs = append(runs, res) }
			l := &llm.Loop{Client: &llm.Client{BaseURL: rec.Base()}, Model: "m", Files: []llm.FileInfo{fi}, Exec: x}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			tr := l.Ask(ctx, "Which region had the most revenue?")
			if tr.Stopped != llm.StopAnswered || !strings.HasPrefix(tr.Answer, "South had the most revenue: 230.0.") {
				t.Fatalf("stopped %q %q %q; answer %q", tr.Stopped, tr.Note, tr.Error, tr.Answer)
			}
			cells := tr.Cells()
			if len(cells) != 1 || len(runs) != 1 {
				t.Fatalf("%d cells, %d runs; cell error %q", len(cells), len(runs), cells[0].Error)
			}
			c := cells[0]
			if c.Result.ExitCode != 0 || !strings.Contains(c.Result.Stdout, "South    230.0") {
				t.Fatalf("cell: exit %d stdout %q stderr %q", c.Result.ExitCode, c.Result.Stdout, c.Result.Stderr)
			}
			if len(tr.Files) != 1 || tr.Files[0].Kind != "plot" || !strings.HasPrefix(tr.Files[0].DataURL, "data:image/png;base64,") {
				t.Fatalf("files %+v", tr.Files)
			}
			png, err := os.ReadFile(tr.Files[0].Path)
			if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
				t.Fatalf("plot on disk: %v", err)
			}
			// What went back to the model is the real output.
			bodies := rec.Bodies()
			last := bodies[len(bodies)-1]
			if !strings.Contains(last, `South    230.0`) || !strings.Contains(last, "shown to the user") {
				t.Errorf("last request did not carry the output: %.400s", last)
			}
		})
	}
}
