package llamarun

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"rehome/backend/localmodels"
	"rehome/backend/models"
	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// carried registers-in-memory the tests' tiny model as a carried model.
func carried(t testing.TB) (localmodels.Model, string) {
	t.Helper()
	bin := llamatest.Need(t)
	p := llamatest.Model(t, bin, t.TempDir(), tinymodel.DefaultScript("sales.csv", "region", "revenue"))
	m, err := localmodels.Inspect(p)
	if err != nil {
		t.Fatal(err)
	}
	return m, bin
}

var machine = models.ManualMachine(0, 16<<30, 0, false)

func TestPlanFromTheFit(t *testing.T) {
	m, bin := carried(t)
	p, err := MakePlan(m, Runtime{Path: bin, Backend: BackendCPU}, machine, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The tiny model was made with a small trained context: the plan keeps
	// to it, and says so; on the CPU nothing is offloaded.
	if p.Context <= 0 || p.Context > m.ContextLength || p.GPULayers != 0 || p.Fit.Verdict != models.VerdictCPU {
		t.Fatalf("plan %+v", p)
	}
	// A GPU that holds it all: every layer and the output offloaded.
	gpu := models.ManualMachine(24<<30, 64<<30, 1, false)
	p, err = MakePlan(m, Runtime{Path: bin, Backend: BackendVulkan}, gpu, 0)
	if err != nil || p.GPULayers != m.Layers+1 || p.Fit.Verdict != models.VerdictGPU {
		t.Fatalf("gpu plan %+v %v", p, err)
	}
	args := strings.Join(p.Args(), " ")
	if !strings.Contains(args, "--jinja") || !strings.Contains(args, "-ngl 3") || strings.Contains(args, "api-key") {
		t.Fatalf("args %s", args)
	}
	// No memory at all: refused in words.
	if _, err := MakePlan(m, Runtime{Path: bin, Backend: BackendCPU}, models.ManualMachine(0, 1<<20, 0, false), 0); !errors.Is(err, ErrNoFit) {
		t.Fatalf("no memory: %v", err)
	}
}

// The server rehome starts listens on loopback only, refuses requests
// without its key, keeps the key off its command line, logs to a 0600
// file and is gone after Stop.
func TestStartGuardsTheServer(t *testing.T) {
	m, bin := carried(t)
	p, err := MakePlan(m, Runtime{Path: bin, Backend: BackendCPU}, machine, 2048)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "llama.log")
	var said []string
	srv, err := Start(context.Background(), p, logPath, func(s string) { said = append(said, s) })
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	t.Logf("healthy after %s; said %q", srv.Started, said)
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || len(srv.Key) != 48 || len(said) < 2 {
		t.Fatalf("server %+v said %q", srv, said)
	}
	get := func(key string) int {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/models", nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := get(""); c != http.StatusUnauthorized {
		t.Errorf("no key: %d", c)
	}
	if c := get("wrong"); c != http.StatusUnauthorized {
		t.Errorf("a wrong key: %d", c)
	}
	if c := get(srv.Key); c != http.StatusOK {
		t.Errorf("the key: %d", c)
	}
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(srv.PID) + "/cmdline")
	if strings.Contains(string(cmdline), srv.Key) || !strings.Contains(string(cmdline), "127.0.0.1") {
		t.Errorf("command line %q", cmdline)
	}
	if st, err := os.Stat(logPath); err != nil || st.Mode().Perm() != 0o600 || st.Size() == 0 {
		t.Errorf("log %v %v", st, err)
	}
	srv.Stop()
	select {
	case <-srv.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("still running after Stop")
	}
}

// A server that fails at start is explained: a fake runtime that prints
// what llama.cpp prints on each failure (a GPU this machine does not have
// cannot run out of memory here).
func TestStartExplainsFailures(t *testing.T) {
	m, _ := carried(t)
	cases := map[string]string{
		"ggml_vulkan: Device memory allocation of size 4294967296 failed.\nvk::Device::allocateMemory: ErrorOutOfDeviceMemory": "ran out of memory",
		"ggml_vulkan: failed to initialize Vulkan: vk::createInstance: ErrorIncompatibleDriver":                                "Vulkan driver failed",
		"llama_model_load: error loading model: unknown model architecture: 'foo'":                                             "could not load",
		"segmentation fault somewhere": "it exited",
	}
	dir := t.TempDir()
	for out, want := range cases {
		fake := filepath.Join(dir, "fake.sh")
		os.WriteFile(fake, []byte("#!/bin/sh\necho '"+out+"' >&2\nexit 1\n"), 0o755)
		p := Plan{Model: m, Runtime: Runtime{Path: fake, Backend: BackendVulkan}, Context: 2048, GPULayers: 3}
		_, err := Start(context.Background(), p, filepath.Join(dir, "log"), nil)
		if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v (want %q)", out, err, want)
		}
	}
}

// The manager reuses a running server, stops it when idle, and stops
// everything on Close.
func TestManagerLeasesAndIdle(t *testing.T) {
	m, bin := carried(t)
	p, err := MakePlan(m, Runtime{Path: bin, Backend: BackendCPU}, machine, 2048)
	if err != nil {
		t.Fatal(err)
	}
	mg := &Manager{LogDir: t.TempDir(), Idle: 300 * time.Millisecond}
	defer mg.Close()
	a, err := mg.Ensure(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := mg.Ensure(context.Background(), p, nil)
	if err != nil || b.Server != a.Server {
		t.Fatalf("a second question started another server: %v", err)
	}
	a.Release()
	time.Sleep(600 * time.Millisecond)
	if len(mg.Running()) != 1 {
		t.Fatal("stopped while a question still held it")
	}
	b.Release()
	select {
	case <-a.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("not stopped after the idle time")
	}
	if len(mg.Running()) != 0 {
		t.Fatal("still listed")
	}
	c, err := mg.Ensure(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	mg.Close()
	select {
	case <-c.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("Close left it running")
	}
}

// Find takes the CPU build when the Vulkan build sees no GPU (here:
// lavapipe, a CPU-type device ggml hides), and the Vulkan build when the
// device is made visible, and says why.
func TestFindPicksTheBackend(t *testing.T) {
	_, bin := carried(t)
	vk := os.Getenv("REHOME_LLAMA_SERVER_VULKAN")
	t.Setenv("REHOME_LLAMA_SERVER", bin)
	t.Setenv("REHOME_LLAMA_DIR", t.TempDir())
	if vk == "" {
		t.Setenv("REHOME_LLAMA_SERVER_VULKAN", filepath.Join(t.TempDir(), "none"))
		rt, err := Find(context.Background())
		if err != nil || rt.Backend != BackendCPU {
			t.Fatalf("without a Vulkan build: %+v %v", rt, err)
		}
		t.Skip("skipped: the Vulkan half needs REHOME_LLAMA_SERVER_VULKAN (build/llm/llama-server.sh --vulkan)")
	}
	t.Setenv("GGML_VK_VISIBLE_DEVICES", "")
	os.Unsetenv("GGML_VK_VISIBLE_DEVICES")
	rt, err := Find(context.Background())
	if err != nil || rt.Backend != BackendCPU || !strings.Contains(rt.Why, "no Vulkan GPU") {
		t.Fatalf("lavapipe hidden: %+v %v", rt, err)
	}
	t.Setenv("GGML_VK_VISIBLE_DEVICES", "0")
	rt, err = Find(context.Background())
	if err != nil || rt.Backend != BackendVulkan || len(rt.Devices) == 0 {
		t.Fatalf("lavapipe visible: %+v %v", rt, err)
	}
	t.Logf("%s: %s", rt.Backend, rt.Why)
}

// The Vulkan build answers on Mesa's lavapipe (a Vulkan device on the
// CPU, made visible to ggml): the tiny model's tool call comes back with
// every layer offloaded to the Vulkan device.
func TestVulkanAnswersOnLavapipe(t *testing.T) {
	m, _ := carried(t)
	vk := os.Getenv("REHOME_LLAMA_SERVER_VULKAN")
	if vk == "" {
		if os.Getenv("REHOME_REQUIRE_LLAMA") != "" {
			t.Fatal("REHOME_REQUIRE_LLAMA is set but REHOME_LLAMA_SERVER_VULKAN is not (build/llm/llama-server.sh --vulkan)")
		}
		t.Skip("skipped: no Vulkan build (REHOME_LLAMA_SERVER_VULKAN; build/llm/llama-server.sh --vulkan)")
	}
	t.Setenv("GGML_VK_VISIBLE_DEVICES", "0")
	devs, err := ListDevices(context.Background(), vk)
	if err != nil || len(devs) == 0 {
		t.Fatalf("lavapipe is not listed (is mesa-vulkan-drivers installed?): %v %v", devs, err)
	}
	p := Plan{Model: m, Runtime: Runtime{Path: vk, Backend: BackendVulkan, Devices: devs}, Context: 2048, GPULayers: m.Layers + 1}
	logPath := filepath.Join(t.TempDir(), "llama.log")
	srv, err := Start(context.Background(), p, logPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	body := `{"model":"tiny","messages":[{"role":"user","content":"Which region had the most revenue?"}],"tools":[{"type":"function","function":{"name":"python","description":"run python","parameters":{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}}}]}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+srv.Key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(out), `"name":"python"`) || !strings.Contains(string(out), "read_csv") {
		t.Fatalf("answer %d: %s", resp.StatusCode, out)
	}
	log, _ := os.ReadFile(logPath)
	if !strings.Contains(string(log), "Vulkan0") || !strings.Contains(string(log), "offloaded 3/3 layers to GPU") {
		t.Fatalf("not run on the Vulkan device:\n%s", log)
	}
	t.Logf("tool call on %s in %s", devs[0], time.Since(start).Round(time.Millisecond))
}

// A vision model's projector: started with --mmproj, and the fit counts
// it (a GPU that holds the model alone but not with a projector of
// 23 GiB beside it offloads less).
func TestPlanCountsTheProjector(t *testing.T) {
	m, bin := carried(t)
	gpu := models.ManualMachine(24<<30, 64<<30, 1, false)
	m.MMProj, m.MMProjSize = "/m/mmproj-f16.gguf", 900<<20
	p, err := MakePlan(m, Runtime{Path: bin, Backend: BackendVulkan}, gpu, 0)
	if err != nil || !strings.Contains(strings.Join(p.Args(), " "), "--mmproj /m/mmproj-f16.gguf --jinja") || !strings.Contains(strings.Join(p.Reasons, "; "), "its image projector takes 900 MiB") {
		t.Fatalf("plan %+v %v", p, err)
	}
	m.MMProjSize = 24<<30 - 1<<20
	p, err = MakePlan(m, Runtime{Path: bin, Backend: BackendVulkan}, gpu, 0)
	if err != nil || p.Fit.Verdict == models.VerdictGPU {
		t.Fatalf("a projector filling the GPU: %+v %v", p.Fit, err)
	}
}
