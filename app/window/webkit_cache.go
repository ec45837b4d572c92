//go:build desktop && linux && webkit2_41

package window

/*
#cgo pkg-config: webkit2gtk-4.1
#include <webkit2/webkit2.h>

static void rehome_document_viewer(void) {
	webkit_web_context_set_cache_model(webkit_web_context_get_default(), WEBKIT_CACHE_MODEL_DOCUMENT_VIEWER);
}
*/
import "C"

// setDocumentViewer sets WebKit's default context (the one Wails' web view
// uses) to the document-viewer cache model: one page, loaded once from
// memory, so no page or object cache is kept for pages never revisited.
func setDocumentViewer() { C.rehome_document_viewer() }
