//go:build cgo

package h5lib

/*
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <hdf5.h>
*/
import "C"

import "unsafe"

// maxExternalName bounds the name of one external file read back from a
// creation property list (a path; PATH_MAX on Linux).
const maxExternalName = 4096

// externalFiles lists the files of a dataset's external storage
// (H5Pget_external), as the file names them: absolute, or relative to
// where libhdf5 looks (see package hdf5's externalPath).
func externalFiles(dset int64, count int) ([]string, error) {
	p := C.H5Dget_create_plist(C.hid_t(dset))
	if p < 0 {
		return nil, libError("H5Dget_create_plist")
	}
	defer C.H5Pclose(p)
	buf := (*C.char)(C.malloc(maxExternalName))
	defer C.free(unsafe.Pointer(buf))
	var names []string
	for i := range count {
		var off C.off_t
		var size C.hsize_t
		if C.H5Pget_external(p, C.uint(i), maxExternalName, buf, &off, &size) < 0 {
			return nil, libError("H5Pget_external")
		}
		names = append(names, C.GoStringN(buf, C.int(C.strnlen(buf, maxExternalName))))
	}
	return names, nil
}
