package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionCLI: a session started by one command is reached by later
// ones (state kept, the last expression shown, Jupyter's Out[n]), listed,
// exported as a notebook that Jupyter's validator accepts and as .py, and
// stopped.
func TestSessionCLI(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	csv := filepath.Join(dir, "sales.csv")
	os.WriteFile(csv, []byte("month,revenue\n1,10\n2,14\n3,9\n"), 0o644)

	r := rehomeCLI(t, home, "session", "start", "--file", csv, "--idle", "5m")
	if r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	id := strings.TrimSpace(r.stdout)
	t.Cleanup(func() { rehomeCLI(t, home, "session", "stop", id) })

	r = rehomeCLIIn(t, home, strings.NewReader("import pandas as pd\ndf = pd.read_csv('sales.csv')\ndf.head(2)\n"), "session", "exec", id, "-")
	if r.code != 0 || !strings.Contains(r.stdout, "Out[1]:") || !strings.Contains(r.stdout, "revenue") {
		t.Fatalf("cell 1: %+v", r)
	}
	type cell struct {
		Cell     int    `json:"cell"`
		Status   string `json:"status"`
		Stdout   string `json:"stdout"`
		Displays []struct {
			Kind, Text string
			Result     bool
		} `json:"displays"`
		Files []struct{ Name, Kind string } `json:"files"`
	}
	c := decode[cell](t, rehomeCLIIn(t, home, strings.NewReader("import matplotlib.pyplot as plt\nplt.bar(df.month, df.revenue)\nprint(len(df))\nint(df.revenue.sum())\n"), "session", "exec", id, "--json", "-"))
	if c.Cell != 2 || c.Status != "ok" || c.Stdout != "3\n" || len(c.Displays) != 1 || c.Displays[0].Text != "33" || !c.Displays[0].Result || len(c.Files) != 1 || c.Files[0].Kind != "plot" {
		t.Fatalf("cell 2: %+v", c)
	}
	r = rehomeCLIIn(t, home, strings.NewReader("df.nope\n"), "session", "exec", id, "-")
	if r.code != 1 || !strings.Contains(r.stderr, "AttributeError") {
		t.Fatalf("failing cell: %+v", r)
	}

	r = rehomeCLI(t, home, "session", "list")
	if r.code != 0 || !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, "running") || !strings.Contains(r.stdout, "3 cells") {
		t.Fatalf("list: %+v", r)
	}
	nb := filepath.Join(dir, "out.ipynb")
	if r = rehomeCLI(t, home, "session", "export", id, "-o", nb); r.code != 0 {
		t.Fatalf("export: %+v", r)
	}
	out, err := exec.Command("/usr/bin/python3", "-c", "import sys, nbformat; nb = nbformat.read(sys.argv[1], as_version=4); nbformat.validate(nb); print(len(nb.cells), sorted({o.output_type for c in nb.cells for o in c.outputs}))", nb).CombinedOutput()
	if strings.Contains(string(out), "No module named 'nbformat'") {
		t.Fatal("nbformat is missing: sudo apt-get install python3-nbformat")
	}
	if err != nil || strings.TrimSpace(string(out)) != "3 ['display_data', 'error', 'execute_result', 'stream']" {
		t.Fatalf("notebook: %v %s", err, out)
	}
	py := filepath.Join(dir, "out.py")
	if r = rehomeCLI(t, home, "session", "export", id, "-o", py); r.code != 0 {
		t.Fatalf("export .py: %+v", r)
	}
	if b, _ := os.ReadFile(py); !strings.Contains(string(b), "# %% In[2]") || !strings.Contains(string(b), "plt.bar") {
		t.Fatalf(".py: %s", b)
	}

	if r = rehomeCLI(t, home, "session", "stop", id); r.code != 0 {
		t.Fatalf("stop: %+v", r)
	}
	r = rehomeCLIIn(t, home, strings.NewReader("1\n"), "session", "exec", id, "-")
	if r.code != 1 || !strings.Contains(r.stderr, "ended") {
		t.Fatalf("exec after stop: %+v", r)
	}
	if r = rehomeCLI(t, home, "session", "list"); !strings.Contains(r.stdout, "ended") {
		t.Fatalf("list after stop: %+v", r)
	}
	wantUsageError(t, rehomeCLI(t, home, "session", "exec", id), "script")

	// A one-shot run shows its last expression too.
	r = rehomeCLIIn(t, home, strings.NewReader("x = 21\nx * 2\n"), "run", "-")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "42" {
		t.Fatalf("run's last expression: %+v", r)
	}
	wantUsageError(t, rehomeCLI(t, home, "session", "export", id, "-o", filepath.Join(dir, "x.txt")), ".ipynb")
}
