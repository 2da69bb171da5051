package gofunc

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

// A c-shared host (CPython loads extensions RTLD_LOCAL) is made global:
// Go's plugin loader binds a plugin to the Go symbols of objects loaded
// RTLD_GLOBAL. RTLD_NOLOAD: the object already loaded, not a second copy.
static const char *gd_make_global(void) {
  Dl_info self;
  if (dladdr((void *)gd_make_global, &self) == 0 || self.dli_fname == NULL) return "dladdr found no object";
  return dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) ? NULL : dlerror();
}
*/
import "C"

import (
	"fmt"
	"plugin"

	"github.com/godlpack/godlpack/core"
)

// LoadPlugin opens the Go plugin at path (a kit's Go packages, built by
// godlpack.build.go_kit against this program's exact build) and adds the
// functions its packages register to the opened registry, as Extend does:
// [first, end). Linking package plugin makes the linker keep and export
// what such a plugin binds to. The caller checks the plugin's fingerprint
// first (python/godlpack/_kits.py): a plugin built for another Go runtime
// aborts the process inside plugin.Open, where no error can be returned.
// Errors wrap core.ErrKit.
func LoadPlugin(path string) (first, end int, err error) {
	if why := C.gd_make_global(); why != nil {
		return 0, 0, fmt.Errorf("%s: the program cannot be made global for its plugins: %s: %w", path,
			C.GoString(why), core.ErrKit)
	}
	first, end, err = Extend(func() error {
		_, err := plugin.Open(path)
		return err
	})
	if err != nil {
		return first, end, fmt.Errorf("%s: %v: %w", path, err, core.ErrKit)
	}
	return first, end, nil
}
