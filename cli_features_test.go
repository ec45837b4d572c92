package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func decode[T any](t *testing.T, r cliResult) T {
	t.Helper()
	var v T
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q, stdout %.600q", r.code, r.stderr, r.stdout)
	}
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("not JSON (%v): %q", err, r.stdout)
	}
	return v
}

func TestHardwareCLI(t *testing.T) {
	home := t.TempDir()
	hw := decode[struct {
		CPUOnly bool `json:"cpu_only"`
		GPUs    []any
		CPU     struct{ Cores int }
		Memory  struct {
			TotalBytes int64 `json:"total_bytes"`
		}
	}](t, rehomeCLI(t, home, "hw", "--json"))
	if hw.GPUs == nil {
		t.Fatal("gpus must be a list, [] without a GPU")
	}
	if hw.CPUOnly != (len(hw.GPUs) == 0) || hw.CPU.Cores < 1 || hw.Memory.TotalBytes < 1<<28 {
		t.Fatalf("hw --json: %+v", hw)
	}
	r := rehomeCLI(t, home, "hw")
	if r.code != 0 || (hw.CPUOnly && !strings.Contains(r.stdout, "CPU only")) {
		t.Fatalf("hw text: %+v", r)
	}
	wantUsageError(t, rehomeCLI(t, home, "hw", "--frob"), "not defined")
}

func TestModelsAndFitCLI(t *testing.T) {
	home := t.TempDir()
	list := decode[[]struct{ ID string }](t, rehomeCLI(t, home, "models", "--json"))
	if len(list) < 25 {
		t.Fatalf("catalog has %d models", len(list))
	}
	for _, m := range list {
		if m.ID == "" {
			t.Fatal("a catalog entry has no id")
		}
	}
	fit := decode[struct {
		Weights int64  `json:"weights_bytes"`
		KV      int64  `json:"kv_cache_bytes"`
		Compute int64  `json:"compute_bytes"`
		Over    int64  `json:"overhead_bytes"`
		Total   int64  `json:"total_bytes"`
		Verdict string `json:"verdict"`
	}](t, rehomeCLI(t, home, "fit", "--model", "llama-3.1-8b-instruct", "--quant", "Q4_K_M", "--ctx", "8192", "--vram", "24GiB", "--ram", "64GiB", "--json"))
	if fit.KV != 1<<30 {
		t.Fatalf("f16 KV cache at 8192 tokens = %d, want 1 GiB", fit.KV)
	}
	if fit.Weights < 4.8e9 || fit.Weights > 5.0e9 || fit.Total < fit.Weights+fit.KV+fit.Compute || fit.Verdict != "gpu" {
		t.Fatalf("fit: %+v", fit)
	}
	// Too little memory for a 70B model on 8 GiB VRAM and 16 GiB RAM.
	big := decode[struct{ Verdict string }](t, rehomeCLI(t, home, "fit", "--model", "llama-3.3-70b-instruct", "--quant", "Q4_K_M", "--vram", "8GiB", "--ram", "16GiB", "--json"))
	if big.Verdict == "gpu" {
		t.Fatalf("70B Q4_K_M fits in 8 GiB? %+v", big)
	}
	wantUsageError(t, rehomeCLI(t, home, "fit", "--model", "nope"), "nope")
	wantUsageError(t, rehomeCLI(t, home, "fit", "--model", "llama-3.1-8b-instruct", "--vram", "lots"), "lots")
	r := rehomeCLI(t, home, "fit", "--gguf", "/etc/hostname")
	if r.code != 1 || r.stderr == "" {
		t.Fatalf("fit --gguf on a text file: %+v", r)
	}
}

func TestAuditCLI(t *testing.T) {
	home := t.TempDir()
	type capResult struct {
		ID       string `json:"id"`
		Category string `json:"category"`
		Reason   string `json:"reason"`
	}
	type rec struct {
		ID         string `json:"id"`
		Assistants []struct {
			Capabilities []capResult `json:"capabilities"`
			Verdict      any         `json:"verdict"`
		} `json:"assistants"`
	}
	out := decode[rec](t, rehomeCLI(t, home, "audit", "--features", "code_interpreter,image_generation,actions,web_browsing", "--vram", "8GiB", "--air-gapped", "--json"))
	if len(out.Assistants) != 1 || out.Assistants[0].Verdict == nil {
		t.Fatalf("audit: %+v", out)
	}
	got := map[string]capResult{}
	for _, c := range out.Assistants[0].Capabilities {
		got[c.ID] = c
		if c.Reason == "" {
			t.Errorf("%s has no reason", c.ID)
		}
	}
	if got["web_browsing"].Category != "does_not_port" {
		t.Errorf("browsing on an air-gapped machine: %+v", got["web_browsing"])
	}
	if got["code_interpreter"].Category != "hosts" {
		t.Errorf("code interpreter: %+v", got["code_interpreter"])
	}
	// An assistant from the store.
	a := addAssistant(t, home, "--name", "Researcher", "--capability", "web_browsing", "--capability", "code_interpreter")
	one := decode[rec](t, rehomeCLI(t, home, "audit", "--assistant", a["id"].(string), "--vram", "24GiB", "--json"))
	if len(one.Assistants) != 1 {
		t.Fatalf("audit --assistant: %+v", one)
	}
	// Every audit is kept, newest first.
	r := rehomeCLI(t, home, "audit", "list", "--json")
	var hist []struct{ ID string }
	if err := json.Unmarshal([]byte(r.stdout), &hist); err != nil || len(hist) != 2 || hist[0].ID != one.ID {
		t.Fatalf("audit list: %v %q", err, r.stdout)
	}
	wantUsageError(t, rehomeCLI(t, home, "audit", "--features", "teleport", "--vram", "8GiB"), "teleport")
	r = rehomeCLI(t, home, "audit", "--assistant", "00000000000000000000000000", "--vram", "8GiB")
	if r.code == 0 || !strings.Contains(r.stderr, "not found") {
		t.Fatalf("audit of a missing assistant: %+v", r)
	}
}

func TestAssistantsImportExportCLI(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	know := filepath.Join(dir, "prices.csv")
	os.WriteFile(know, []byte("sku,price\na,1\n"), 0o600)
	gpt := filepath.Join(dir, "gpt.json")
	os.WriteFile(gpt, []byte(`{"object":"assistant","name":"Pricing bot","instructions":"Quote prices.","model":"gpt-4o",
	  "tools":[{"type":"code_interpreter"},{"type":"file_search"}]}`), 0o600)
	r := rehomeCLI(t, home, "assistants", "import", gpt, "--knowledge", know, "--json")
	imported := decode[map[string]any](t, r)
	a, _ := imported["assistant"].(map[string]any)
	if a == nil {
		a = imported
	}
	id, _ := a["id"].(string)
	if id == "" || a["name"] != "Pricing bot" {
		t.Fatalf("import: %q", r.stdout)
	}
	for _, format := range []string{"modelfile", "openwebui", "bundle"} {
		out := filepath.Join(dir, "export."+format)
		r := rehomeCLI(t, home, "assistants", "export", id, "--format", format, "--model", "llama3.1:8b", "-o", out)
		if r.code != 0 {
			t.Fatalf("export %s: %+v", format, r)
		}
		if st, err := os.Stat(out); err != nil || st.Size() == 0 {
			t.Fatalf("export %s wrote nothing: %v", format, err)
		}
	}
	mf, _ := os.ReadFile(filepath.Join(dir, "export.modelfile"))
	if !strings.Contains(string(mf), "FROM llama3.1:8b") || !strings.Contains(string(mf), "Quote prices.") {
		t.Fatalf("Modelfile: %s", mf)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"name": "x", "instructions": 42}`), 0o600)
	r = rehomeCLI(t, home, "assistants", "import", bad)
	if r.code == 0 || !strings.Contains(r.stderr, "instructions") {
		t.Fatalf("import of a wrong type: %+v", r)
	}
}

// The Assistants API's list response imports every assistant in it, and
// says per assistant what came along and what did not.
func TestAssistantsImportListCLI(t *testing.T) {
	home := t.TempDir()
	list := filepath.Join("backend", "assistant", "testdata", "openai_assistants_list.json")
	r := rehomeCLI(t, home, "assistants", "import", list)
	if r.code != 1 {
		t.Fatalf("a list with one broken assistant: exit %d, want 1: %+v", r.code, r)
	}
	for _, want := range []string{
		"a list of 4 assistant(s): 3 imported, 1 not imported",
		`"Coding Tutor" (asst_abc123)`,
		`"Untitled assistant (asst_abc789)" (asst_abc789)`,
		"vs_abc123", "file-abc123",
		`not imported: "Broken Export" (asst_abc000): instructions: expected a string, got number`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("import output lacks %q:\n%s", want, r.stdout)
		}
	}
	stored := decode[[]struct{ Name string }](t, rehomeCLI(t, home, "assistants", "list", "--json"))
	if len(stored) != 3 {
		t.Fatalf("stored %d assistants, want 3", len(stored))
	}
	rep := rehomeCLI(t, t.TempDir(), "assistants", "import", list, "--json")
	var report struct {
		List     bool `json:"list"`
		Imported int  `json:"imported"`
		Failed   int  `json:"failed"`
		Items    []struct {
			SourceID string `json:"source_id"`
			Imported bool   `json:"imported"`
			Error    string `json:"error"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(rep.stdout), &report); err != nil || !report.List || report.Imported != 3 || report.Failed != 1 || len(report.Items) != 4 {
		t.Fatalf("--json: %v %q", err, rep.stdout)
	}
}

func TestRunAndSandboxCLI(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	csv := filepath.Join(dir, "sales data.csv")
	os.WriteFile(csv, []byte("month,revenue\n1,10\n2,14\n3,9\n"), 0o600)
	script := filepath.Join(dir, "plot.py")
	os.WriteFile(script, []byte(`import pandas as pd, matplotlib.pyplot as plt
df = pd.read_csv("/mnt/data/sales data.csv")
print(df["revenue"].sum())
df.plot(x="month", y="revenue")
plt.show()
open("/mnt/data/summary.txt", "w").write("ok")
`), 0o600)
	type result struct {
		ID       string `json:"id"`
		ExitCode int    `json:"exit_code"`
		TimedOut bool   `json:"timed_out"`
		Stdout   string `json:"stdout"`
		Files    []struct {
			Name, Path, SHA256 string
			Size               int64
		} `json:"files"`
		Limits map[string]struct{ Strength string } `json:"limits"`
	}
	res := decode[result](t, rehomeCLI(t, home, "run", "--file", csv, "--json", script))
	if res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "33" {
		t.Fatalf("run: %+v", res)
	}
	names := map[string]bool{}
	for _, f := range res.Files {
		names[filepath.Base(f.Name)] = true
		if b, err := os.ReadFile(f.Path); err != nil || int64(len(b)) != f.Size {
			t.Fatalf("output %s not saved where it says: %v", f.Name, err)
		}
	}
	if !names["summary.txt"] || len(res.Files) != 2 {
		t.Fatalf("outputs: %+v", res.Files)
	}
	if res.Limits["timeout"].Strength == "" || res.Limits["memory"].Strength == "" {
		t.Fatalf("limits not reported: %+v", res.Limits)
	}
	// The script from stdin, and the time limit.
	r := rehomeCLIIn(t, home, strings.NewReader("import time\ntime.sleep(60)\n"), "run", "--file", csv, "--timeout", "2s", "--json", "-")
	var slow result
	if err := json.Unmarshal([]byte(r.stdout), &slow); err != nil || !slow.TimedOut {
		t.Fatalf("timeout: %v %+v", err, r)
	}
	// Every run is stored.
	st := rehomeCLI(t, home, "doctor", "--json")
	if !strings.Contains(st.stdout, "2 runs") {
		t.Fatalf("runs not stored: %s", st.stdout)
	}
	wantUsageError(t, rehomeCLI(t, home, "run", "--file", csv), "script")
	wantUsageError(t, rehomeCLI(t, home, "run", "--file", csv, "--timeout", "soon", script), "soon")
	r = rehomeCLI(t, home, "run", "--file", filepath.Join(dir, "missing.csv"), script)
	if r.code == 0 || !strings.Contains(r.stderr, "missing.csv") {
		t.Fatalf("missing input: %+v", r)
	}
	r = rehomeCLI(t, home, "run", "--file", dir, script)
	if r.code == 0 || !strings.Contains(strings.ToLower(r.stderr), "folder") {
		t.Fatalf("a folder as input: %+v", r)
	}

	r = rehomeCLI(t, home, "sandbox", "image", "status")
	if r.code != 0 || !strings.Contains(r.stdout, "ready") {
		t.Fatalf("image status: %+v", r)
	}
	wantUsageError(t, rehomeCLI(t, home, "sandbox", "frob"), "unknown command")
	r = rehomeCLI(t, home, "sandbox", "image", "load", filepath.Join(dir, "nope.tar.gz"))
	if r.code == 0 || !strings.Contains(r.stderr, "nope.tar.gz") {
		t.Fatalf("load of a missing archive: %+v", r)
	}
}
