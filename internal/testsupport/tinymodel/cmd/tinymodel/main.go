package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"rehome/internal/testsupport/tinymodel"
)

func main() {
	out := flag.String("o", "tiny.gguf", "the GGUF `file` to write")
	src := flag.String("src", "", "the `folder` with "+tinymodel.VocabFile+" and "+tinymodel.TemplateFile+" (default: beside the cached llama-server)")
	csv := flag.String("csv", "sales.csv", "the CSV `name` the code reads from /mnt/data")
	group := flag.String("group", "region", "the `column` the plot groups by")
	value := flag.String("value", "revenue", "the `column` the plot sums")
	script := flag.String("script", "python", "what the model does: python (reads the CSV, plots), memory (saves a memory with the memory tool), canvas (create_textdoc, then update_textdoc), code-canvas (create_textdoc of Python that prints 42) or vision (answers The chart shows bars., calling no tool; with -mmproj)")
	mmproj := flag.String("mmproj", "", "also write the tiny vision projector to this `file` (llama-server's --mmproj: the model then reads images)")
	flag.Parse()
	if *src == "" {
		bin, err := exec.Command("bash", "build/llm/llama-server.sh", "--find").Output()
		if err != nil {
			fail(fmt.Errorf("no -src, and no built llama-server to take the files from (run from the repository root after `make llama`)"))
		}
		*src = filepath.Dir(strings.TrimSpace(string(bin)))
	}
	sc := tinymodel.DefaultScript(*csv, *group, *value)
	switch *script {
	case "python":
	case "memory":
		sc = tinymodel.MemoryScript()
	case "canvas":
		sc = tinymodel.CanvasScript()
	case "code-canvas":
		sc = tinymodel.CodeCanvasScript()
	case "vision":
		sc = tinymodel.VisionScript()
	default:
		fail(fmt.Errorf("-script is python, memory, canvas, code-canvas or vision, not %q", *script))
	}
	if *mmproj != "" {
		if err := tinymodel.WriteProjector(*mmproj); err != nil {
			fail(err)
		}
	}
	m, err := tinymodel.Build(*src, sc)
	if err != nil {
		fail(err)
	}
	if err := m.WriteFile(*out); err != nil {
		fail(err)
	}
	fmt.Println(*out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "tinymodel:", err)
	os.Exit(1)
}
