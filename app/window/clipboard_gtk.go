//go:build desktop && linux && webkit2_41

package window

/*
#cgo pkg-config: gtk+-3.0
#include <gtk/gtk.h>
#include <string.h>

extern void rehomeClipboardAnswer(int id, guchar *data, gint length, gchar *target);

// The image types rehome reads, in the order taken when the clipboard's
// owner offers several (a screenshot tool offers PNG).
static const char *rehome_image_types[] = {"image/png", "image/jpeg", "image/webp", "image/gif", NULL};

static void rehome_clipboard_got(GtkClipboard *cb, GtkSelectionData *sel, gpointer id) {
	gchar *target = gdk_atom_name(gtk_selection_data_get_target(sel));
	gint n = gtk_selection_data_get_length(sel);
	rehomeClipboardAnswer(GPOINTER_TO_INT(id), (guchar *)gtk_selection_data_get_data(sel), n, target);
	g_free(target);
}

static void rehome_clipboard_targets(GtkClipboard *cb, GdkAtom *atoms, gint n, gpointer id) {
	for (int t = 0; rehome_image_types[t]; t++) {
		GdkAtom want = gdk_atom_intern_static_string(rehome_image_types[t]);
		for (gint i = 0; i < n; i++) {
			if (atoms[i] == want) {
				gtk_clipboard_request_contents(cb, want, rehome_clipboard_got, id);
				return;
			}
		}
	}
	// An image of another type (BMP, TIFF) is named; text is no image.
	for (gint i = 0; i < n; i++) {
		gchar *name = gdk_atom_name(atoms[i]);
		gboolean image = g_str_has_prefix(name, "image/");
		if (image) {
			rehomeClipboardAnswer(GPOINTER_TO_INT(id), NULL, -2, name);
		}
		g_free(name);
		if (image) {
			return;
		}
	}
	rehomeClipboardAnswer(GPOINTER_TO_INT(id), NULL, -1, NULL);
}

static gboolean rehome_clipboard_start(gpointer id) {
	gtk_clipboard_request_targets(gtk_clipboard_get(GDK_SELECTION_CLIPBOARD), rehome_clipboard_targets, id);
	return G_SOURCE_REMOVE;
}

// rehome_clipboard_image asks GTK's main loop for the clipboard's image;
// the answer comes to rehomeClipboardAnswer, on GTK's thread.
static void rehome_clipboard_image(int id) {
	g_idle_add(rehome_clipboard_start, GINT_TO_POINTER(id));
}
*/
import "C"

import (
	"errors"
	"time"
	"unsafe"
)

// clipWait is how long a paste waits for the clipboard's owner.
const clipWait = 10 * time.Second

// clipboardImage reads the clipboard's image with GTK, asynchronously on
// its main loop (request_targets, then request_contents of the first type
// rehome reads), never blocking that loop.
func clipboardImage(limit int) ([]byte, error) {
	id, ch := startRead(limit)
	defer endRead(id)
	C.rehome_clipboard_image(C.int(id))
	select {
	case ans := <-ch:
		return ans.image(limit)
	case <-time.After(clipWait):
		return nil, errors.New("the clipboard did not answer within 10 s: copy the image again")
	}
}

//export rehomeClipboardAnswer
func rehomeClipboardAnswer(id C.int, data *C.guchar, n C.gint, target *C.gchar) {
	ans := clipAnswer{n: int(n)}
	if target != nil {
		ans.target = C.GoString((*C.char)(unsafe.Pointer(target)))
	}
	answerRead(int(id), ans, func() []byte {
		if data == nil {
			return nil
		}
		return C.GoBytes(unsafe.Pointer(data), C.int(n))
	})
}
