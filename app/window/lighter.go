package window

import (
	"os"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// The window at rest is one page of rehome's own, so WebKit is set for
// that (docs/window.md, "Memory at rest"): the document-viewer cache model,
// and no GPU compositing — on a machine without a GPU driver (a VM, Xvfb)
// "on demand" loads Mesa's software OpenGL (llvmpipe: libLLVM, ~44 MiB)
// into the window's process and WebKit's web process alike, for a page
// with nothing to composite. REHOME_WEBVIEW_GPU=ondemand or always brings
// it back (and the bench compares the two in one run).
func gpuPolicy() linux.WebviewGpuPolicy {
	switch os.Getenv("REHOME_WEBVIEW_GPU") {
	case "ondemand":
		return linux.WebviewGpuPolicyOnDemand
	case "always":
		return linux.WebviewGpuPolicyAlways
	}
	return linux.WebviewGpuPolicyNever
}

// lighten sets WebKit up for a one-page app before the window opens.
func lighten() {
	if os.Getenv("REHOME_WEBKIT_CACHE") != "browser" {
		setDocumentViewer()
	}
}
