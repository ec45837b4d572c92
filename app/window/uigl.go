//go:build desktop && linux && webkit2_41

package window

/*
#cgo pkg-config: gtk+-3.0
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <gdk/gdk.h>

// rehome_setenv_for sets name to value and returns its old value (a copy
// to give back to rehome_restore), or NULL where it was unset.
static char *rehome_setenv_for(const char *name, const char *value) {
	const char *old = getenv(name);
	char *saved = old ? strdup(old) : NULL;
	setenv(name, value, 1);
	return saved;
}

static void rehome_restore(const char *name, char *saved) {
	if (saved) {
		setenv(name, saved, 1);
		free(saved);
	} else {
		unsetenv(name);
	}
}

// rehome_ui_without_gl keeps OpenGL's drivers out of this process (GTK's
// and WebKit's UI process). Each library reads its variable once, at the
// call made here, and the variables are put back as they were before any
// other process is started, so WebKit's web process, which draws, loads
// its drivers as before. It returns 0, or 1 where libEGL could not be
// loaded (nothing of EGL is then loaded here anyway).
static int rehome_ui_without_gl(void) {
	// GDK reads GDK_GL in its pre-parse; gtk_init's own pre-parse later
	// sets the flags again only where GDK_GL is set.
	char *gdk = rehome_setenv_for("GDK_GL", "disable");
	gdk_parse_args(NULL, NULL);
	rehome_restore("GDK_GL", gdk);
	// libglvnd reads the EGL vendors' files once, at the first EGL call:
	// none is found, so no driver is loaded for EGL in this process.
	char *vendors = rehome_setenv_for("__EGL_VENDOR_LIBRARY_FILENAMES", "/nonexistent/rehome-no-egl-vendor.json");
	int failed = 1;
	void *egl = dlopen("libEGL.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (egl) {
		const char *(*query)(void *, int) = (const char *(*)(void *, int))dlsym(egl, "eglQueryString");
		if (query) {
			query(NULL, 0x3055); // EGL_NO_DISPLAY, EGL_EXTENSIONS
			failed = 0;
		}
	}
	rehome_restore("__EGL_VENDOR_LIBRARY_FILENAMES", vendors);
	return failed;
}

static const char *rehome_getenv(const char *name) { return getenv(name); }
*/
import "C"

import (
	"errors"
	"unsafe"
)

// keepGLOutOfUI keeps OpenGL's drivers (Mesa's libLLVM among them) out of
// the Go process, which is also GTK's and WebKit's UI process; lighter.go
// says when and why. It must run before the window opens (before
// gtk_init) and before any other thread reads the environment.
func keepGLOutOfUI() error {
	if C.rehome_ui_without_gl() != 0 {
		return errors.New("libEGL.so.1 could not be loaded")
	}
	return nil
}

// cEnv is name in the C library's environment, the one WebKit's process
// launcher copies for the web process; Go's os.Getenv reads a copy of its
// own, which C's setenv does not change.
func cEnv(name string) (string, bool) {
	n := C.CString(name)
	defer C.free(unsafe.Pointer(n))
	v := C.rehome_getenv(n)
	if v == nil {
		return "", false
	}
	return C.GoString(v), true
}
