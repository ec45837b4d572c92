package window

import (
	"os"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// The window at rest is one page of rehome's own, so WebKit is set for
// that (docs/window.md, "Memory at rest"): the document-viewer cache model.
// GPU compositing stays "on demand": "never" saves Mesa's software OpenGL
// on a machine without a GPU driver, but WebKitGTK aborted in its web view
// set-up with it in three of ten real-window tests here (SIGABRT in
// SetupWebview), so it is only what REHOME_WEBVIEW_GPU=never asks for.
func gpuPolicy() linux.WebviewGpuPolicy {
	switch os.Getenv("REHOME_WEBVIEW_GPU") {
	case "never":
		return linux.WebviewGpuPolicyNever
	case "always":
		return linux.WebviewGpuPolicyAlways
	}
	return linux.WebviewGpuPolicyOnDemand
}

// lighten sets WebKit up for a one-page app before the window opens,
// when REHOME_WEBKIT_CACHE=viewer asks for it: the document viewer's cache
// model (left opt-in, as the GPU policy is, until the real-window suite
// passes with it: the window aborted at its web view's set-up).
func lighten() {
	if os.Getenv("REHOME_WEBKIT_CACHE") == "viewer" {
		setDocumentViewer()
	}
}
