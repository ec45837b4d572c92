package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// TestCarriedModelAnswers: a GGUF the user carries is registered with
// `rehome models add` and answers `rehome ask --model NAME` with no model
// server running: rehome starts llama-server itself (loopback, its own
// key), the real sandbox runs the tiny model's python call on the CSV,
// and the server is gone when the command ends.
func TestCarriedModelAnswers(t *testing.T) {
	bin := llamatest.Need(t)
	script := tinymodel.DefaultScript("sales.csv", "region", "revenue")
	carried := t.TempDir()
	model := llamatest.Model(t, bin, carried, script)
	home := t.TempDir()

	r := rehomeCLI(t, home, "models", "add", model, "--json")
	var m struct {
		Name, Arch, Quant, SHA256 string
		Layers                    int
		Embedding                 bool
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &m) != nil || m.Name != "tiny" || m.Arch != "llama" || len(m.SHA256) != 64 || m.Embedding {
		t.Fatalf("models add: %+v", r)
	}
	bad := filepath.Join(carried, "weights.gguf")
	os.WriteFile(bad, []byte("PK\x03\x04 a zip"), 0o644)
	if r := rehomeCLI(t, home, "models", "add", bad); r.code != 1 || !strings.Contains(r.stderr, "zip archive") {
		t.Fatalf("a zip named .gguf: %+v", r)
	}
	r = rehomeCLI(t, home, "models", "local", "--json")
	var list []struct {
		Name string
		Fit  *struct{ Verdict string }
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 1 || list[0].Fit == nil {
		t.Fatalf("models local: %+v", r)
	}

	needPodman(t)
	csv, _ := filepath.Abs(filepath.Join("..", "..", "backend", "llm", "testdata", "sales.csv"))
	r = rehomeCLI(t, home, "ask", "--model", "tiny", "--timeout", "2m", "--file", csv, "Which region had the most revenue?", "--json")
	var tr struct {
		Answer, Stopped string
		Cells           []struct {
			Result struct {
				ExitCode int `json:"exit_code"`
				Stdout   string
			}
		}
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &tr) != nil || tr.Stopped != "answered" || tr.Answer != strings.Join(script.Answer, "") ||
		len(tr.Cells) != 1 || tr.Cells[0].Result.ExitCode != 0 || !strings.Contains(tr.Cells[0].Result.Stdout, "revenue") {
		t.Fatalf("ask --model tiny: code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "tiny is ready") {
		t.Errorf("no progress said: %s", r.stderr)
	}
	// The speed llama-server measured of itself is kept with the model.
	r2 := rehomeCLI(t, home, "models", "local", "--json")
	var measured []struct {
		Measured *struct {
			TokensPerSecond float64 `json:"tokens_per_second"`
			Backend         string
		}
	}
	if json.Unmarshal([]byte(r2.stdout), &measured) != nil || len(measured) != 1 || measured[0].Measured == nil || measured[0].Measured.TokensPerSecond <= 0 {
		t.Errorf("no speed measured: %s", r2.stdout)
	} else {
		t.Logf("measured %.0f tokens/s (%s)", measured[0].Measured.TokensPerSecond, measured[0].Measured.Backend)
	}
	if out, _ := exec.Command("pgrep", "-f", "--alias tiny").Output(); len(out) != 0 {
		t.Errorf("llama-server left running after ask: %s", out)
	}
	// Without --model or a server, the carried model is the one asked.
	r = rehomeCLI(t, home, "ask", "--timeout", "2m", "--file", csv, "Which region had the most revenue?")
	if r.code != 0 || !strings.Contains(r.stdout, strings.Join(script.Answer, "")) {
		t.Fatalf("ask with no server: %+v", r)
	}
	if r := rehomeCLI(t, home, "models", "rm", "tiny"); r.code != 0 || !strings.Contains(r.stdout, "stays") {
		t.Fatalf("models rm: %+v", r)
	}
	if _, err := os.Stat(model); err != nil {
		t.Fatalf("rm touched the user's file: %v", err)
	}
}
