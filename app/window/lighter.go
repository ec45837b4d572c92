package window

import (
	"os"
	"path/filepath"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// The window is one page of rehome's own, so WebKit is set for that
// (docs/window.md, "Memory at rest"):
//
//   - GPU compositing only where there is a GPU to composite on. Without a
//     GPU render node (/dev/dri/renderD*), WebKit's "acceleration" is Mesa's
//     llvmpipe, OpenGL drawn on the CPU: slower than WebKit's own CPU
//     drawing and, measured here, about 90 MiB more for the window at rest.
//   - The document viewer's cache model: one page, loaded once from memory,
//     so no page or object cache is kept for pages never revisited.
//   - Where WebKit never composites on the GPU, no OpenGL driver in the Go
//     process, which is also GTK's and WebKit's UI process: it only shows
//     what the web process drew, yet GTK (GLX, to choose its visuals) and
//     WebKit (EGL, to learn the display's formats) would each load Mesa,
//     whose libLLVM alone is 20 MiB of it at rest (uigl.go).
//
// REHOME_WEBVIEW_GPU=never|always|ondemand, REHOME_WEBKIT_CACHE=browser and
// REHOME_WINDOW_UI_GL=keep set them by hand (a GPU driver that misbehaves;
// the bench's baseline).
func gpuPolicy() linux.WebviewGpuPolicy {
	return gpuPolicyFor(os.Getenv("REHOME_WEBVIEW_GPU"), hasRenderNode("/dev/dri"))
}

// gpuPolicyFor is the rule: what the user asked for, else on demand where a
// GPU render node is, never where none is.
func gpuPolicyFor(asked string, renderNode bool) linux.WebviewGpuPolicy {
	switch asked {
	case "never":
		return linux.WebviewGpuPolicyNever
	case "always":
		return linux.WebviewGpuPolicyAlways
	case "ondemand":
		return linux.WebviewGpuPolicyOnDemand
	}
	if renderNode {
		return linux.WebviewGpuPolicyOnDemand
	}
	return linux.WebviewGpuPolicyNever
}

// hasRenderNode reports whether dir (/dev/dri) holds a DRM render node, the
// device a GPU driver draws through.
func hasRenderNode(dir string) bool {
	nodes, _ := filepath.Glob(filepath.Join(dir, "renderD*"))
	return len(nodes) > 0
}

// lighten sets WebKit up for a one-page app: the document viewer's cache
// model, unless REHOME_WEBKIT_CACHE=browser keeps WebKit's default. The
// change is queued on GTK's main loop (webkit_cache.go), so it runs on
// GTK's thread once the window's loop starts.
// It returns the cache model set: "viewer" or "browser".
func lighten() string {
	if os.Getenv("REHOME_WEBKIT_CACHE") == "browser" {
		return "browser"
	}
	setDocumentViewer()
	return "viewer"
}

// glOutOfUI is whether the Go process keeps OpenGL's drivers out: only
// where WebKit never composites on the GPU (with a GPU, the UI process
// shows the web process's frames through GL), unless asked to keep them.
func glOutOfUI(p linux.WebviewGpuPolicy, asked string) bool {
	return p == linux.WebviewGpuPolicyNever && asked != "keep"
}

// uiGL keeps OpenGL's drivers out of the UI process where glOutOfUI says
// so, and says what it did in REHOME_WINDOW_UI_GL's words: "off" (kept
// out) or "kept", with the reason it could not.
func uiGL(p linux.WebviewGpuPolicy) (string, error) {
	if !glOutOfUI(p, os.Getenv("REHOME_WINDOW_UI_GL")) {
		return "kept", nil
	}
	if err := keepGLOutOfUI(); err != nil {
		return "kept", err
	}
	return "off", nil
}

// gpuPolicyName is the policy in REHOME_WEBVIEW_GPU's words, for the log.
func gpuPolicyName(p linux.WebviewGpuPolicy) string {
	switch p {
	case linux.WebviewGpuPolicyNever:
		return "never"
	case linux.WebviewGpuPolicyAlways:
		return "always"
	}
	return "ondemand"
}
