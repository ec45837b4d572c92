//go:build desktop && linux && cgo

package window

/*
#include <malloc.h>
*/
import "C"

// mallocTrim gives the pages C's malloc arenas hold free back to the
// kernel (glibc's malloc_trim): what GTK and WebKit freed while starting.
func mallocTrim() { C.malloc_trim(0) }
