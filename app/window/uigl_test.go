//go:build desktop && linux && webkit2_41

package window

import (
	"os"
	"strings"
	"testing"
)

// keepGLOutOfUI in this test's own process: the variables it sets for
// GDK and libglvnd are put back as they were (set or unset), so the
// processes WebKit starts later load their drivers as before, and its own
// EGL query loaded no driver here. (That the window's process holds no GL
// driver while its web process does, and draws, is window.test.mjs's.)
func TestKeepGLOutOfUIPutsTheEnvironmentBack(t *testing.T) {
	t.Setenv("GDK_GL", "gles") // a user's own setting is kept
	os.Unsetenv("__EGL_VENDOR_LIBRARY_FILENAMES")
	if v, _ := cEnv("GDK_GL"); v != "gles" {
		t.Fatalf("GDK_GL = %q in C's environment before the call: Go's Setenv did not reach it", v)
	}
	if err := keepGLOutOfUI(); err != nil {
		t.Fatal(err)
	}
	// C's environment, not Go's copy (which C's setenv never changes).
	if v, _ := cEnv("GDK_GL"); v != "gles" {
		t.Errorf("GDK_GL = %q after, want the user's gles back", v)
	}
	if v, set := cEnv("__EGL_VENDOR_LIBRARY_FILENAMES"); set {
		t.Errorf("__EGL_VENDOR_LIBRARY_FILENAMES = %q after, want it unset again", v)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	for _, lib := range []string{"libEGL_mesa", "swrast_dri", "libLLVM", "libGLX_mesa"} {
		if strings.Contains(string(maps), lib) {
			t.Errorf("%s is mapped in this process", lib)
		}
	}
}
