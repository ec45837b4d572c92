//go:build desktop && linux && webkit2_41

package window

/*
#cgo pkg-config: webkit2gtk-4.1
#include <webkit2/webkit2.h>

static gboolean rehome_document_viewer_now(gpointer data) {
	webkit_web_context_set_cache_model(webkit_web_context_get_default(), WEBKIT_CACHE_MODEL_DOCUMENT_VIEWER);
	return G_SOURCE_REMOVE;
}

static void rehome_document_viewer(void) {
	g_idle_add(rehome_document_viewer_now, NULL);
}
*/
import "C"

// setDocumentViewer sets WebKit's default context (the one Wails' web view
// uses) to the document-viewer cache model. g_idle_add may be called from
// any thread: the call itself runs on GTK's main loop, after gtk_init.
func setDocumentViewer() { C.rehome_document_viewer() }
