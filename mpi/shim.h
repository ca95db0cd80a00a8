/*
 * shim.h: small C functions for the cgo binding, included by every cgo file.
 *
 * OpenMPI's predefined handles (MPI_COMM_WORLD, MPI_BYTE, MPI_SUM, ...) are
 * macros over addresses of library globals, MPICH's are integers, and a few
 * integer constants differ between the two. cgo cannot name such macros, so
 * Go reaches every predefined value through these small functions, which
 * compile against either library.
 */
#ifndef LMDBIO_MPI_SHIM_H
#define LMDBIO_MPI_SHIM_H

#include <mpi.h>

static inline MPI_Comm lmdbio_comm_world(void) { return MPI_COMM_WORLD; }
static inline MPI_Comm lmdbio_comm_self(void) { return MPI_COMM_SELF; }
static inline MPI_Comm lmdbio_comm_null(void) { return MPI_COMM_NULL; }
static inline MPI_Info lmdbio_info_null(void) { return MPI_INFO_NULL; }
static inline MPI_Errhandler lmdbio_errors_return(void) { return MPI_ERRORS_RETURN; }
static inline MPI_Request lmdbio_request_null(void) { return MPI_REQUEST_NULL; }

static inline MPI_Datatype lmdbio_type_byte(void) { return MPI_BYTE; }
static inline MPI_Datatype lmdbio_type_int64(void) { return MPI_INT64_T; }
static inline MPI_Datatype lmdbio_type_double(void) { return MPI_DOUBLE; }

static inline MPI_Op lmdbio_op_sum(void) { return MPI_SUM; }
static inline MPI_Op lmdbio_op_max(void) { return MPI_MAX; }
static inline MPI_Op lmdbio_op_min(void) { return MPI_MIN; }

static inline int lmdbio_success(void) { return MPI_SUCCESS; }
static inline int lmdbio_err_in_status(void) { return MPI_ERR_IN_STATUS; }
static inline int lmdbio_err_pending(void) { return MPI_ERR_PENDING; }
static inline int lmdbio_any_source(void) { return MPI_ANY_SOURCE; }
static inline int lmdbio_any_tag(void) { return MPI_ANY_TAG; }
static inline int lmdbio_undefined(void) { return MPI_UNDEFINED; }
static inline int lmdbio_comm_type_shared(void) { return MPI_COMM_TYPE_SHARED; }
static inline int lmdbio_max_error_string(void) { return MPI_MAX_ERROR_STRING; }
static inline int lmdbio_max_library_version_string(void) { return MPI_MAX_LIBRARY_VERSION_STRING; }

static inline int lmdbio_thread_single(void) { return MPI_THREAD_SINGLE; }
static inline int lmdbio_thread_funneled(void) { return MPI_THREAD_FUNNELED; }
static inline int lmdbio_thread_serialized(void) { return MPI_THREAD_SERIALIZED; }
static inline int lmdbio_thread_multiple(void) { return MPI_THREAD_MULTIPLE; }

static inline int lmdbio_status_source(const MPI_Status *s) { return s->MPI_SOURCE; }
static inline int lmdbio_status_tag(const MPI_Status *s) { return s->MPI_TAG; }
static inline int lmdbio_status_error(const MPI_Status *s) { return s->MPI_ERROR; }

/*
 * Distinct non-NULL addresses for empty send and receive buffers: some MPI
 * builds reject NULL buffers or treat equal send and receive pointers as
 * forbidden aliasing even when the count is zero.
 */
static inline void *lmdbio_empty_send(void) { static char b[1]; return b; }
static inline void *lmdbio_empty_recv(void) { static char b[1]; return b; }

#endif
