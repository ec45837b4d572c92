package window

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// The GPU rule: what REHOME_WEBVIEW_GPU asks for wins; else compositing on
// demand where a render node is, never where none is (Mesa's llvmpipe).
func TestGPUPolicyFollowsTheRenderNode(t *testing.T) {
	for _, c := range []struct {
		asked string
		node  bool
		want  linux.WebviewGpuPolicy
	}{
		{"", false, linux.WebviewGpuPolicyNever},
		{"", true, linux.WebviewGpuPolicyOnDemand},
		{"never", true, linux.WebviewGpuPolicyNever},
		{"always", false, linux.WebviewGpuPolicyAlways},
		{"ondemand", false, linux.WebviewGpuPolicyOnDemand},
		{"bogus", false, linux.WebviewGpuPolicyNever},
	} {
		if got := gpuPolicyFor(c.asked, c.node); got != c.want {
			t.Errorf("gpuPolicyFor(%q, %v) = %s, want %s", c.asked, c.node, gpuPolicyName(got), gpuPolicyName(c.want))
		}
	}
}

func TestHasRenderNode(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "card0"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if hasRenderNode(dir) {
		t.Fatal("a card node alone is not a render node")
	}
	if err := os.WriteFile(filepath.Join(dir, "renderD128"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if !hasRenderNode(dir) {
		t.Fatal("renderD128 not found")
	}
	if hasRenderNode(filepath.Join(dir, "missing")) {
		t.Fatal("a missing /dev/dri has no render node")
	}
}

// GL stays out of the UI process only where WebKit never composites on
// the GPU: with a GPU the UI process shows the web process's frames
// through GL. REHOME_WINDOW_UI_GL=keep keeps it in.
func TestGLOutOfUIOnlyWithoutGPUCompositing(t *testing.T) {
	for _, c := range []struct {
		p     linux.WebviewGpuPolicy
		asked string
		want  bool
	}{
		{linux.WebviewGpuPolicyNever, "", true},
		{linux.WebviewGpuPolicyNever, "keep", false},
		{linux.WebviewGpuPolicyNever, "bogus", true},
		{linux.WebviewGpuPolicyOnDemand, "", false},
		{linux.WebviewGpuPolicyAlways, "", false},
	} {
		if got := glOutOfUI(c.p, c.asked); got != c.want {
			t.Errorf("glOutOfUI(%s, %q) = %v, want %v", gpuPolicyName(c.p), c.asked, got, c.want)
		}
	}
}
