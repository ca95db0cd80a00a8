/*
 * lmdbio.h — the C interface of lmdbio, a data loader for distributed
 * deep-learning training.
 *
 * One reader per node reads the dataset in large sequential spans and hands
 * every learner process of its node zero-copy views of its batches through
 * shared memory. Every process of the job is a learner: it opens the
 * dataset, asks for its next batch until the end of an epoch, and closes it.
 * The learners are the ranks of an MPI job (lmdbio run -n N -- PROGRAM), or
 * processes without MPI that lmdbio run --agent started (see AGENT MODE).
 *
 *     #include <lmdbio.h>
 *
 *     if (lmdbio_init(LMDBIO_ABI_VERSION) != LMDBIO_OK) fail(lmdbio_last_error());
 *     lmdbio_loader *ld;
 *     if (lmdbio_open("/data/train_lmdb", "batch=64 epochs=2", &ld) != LMDBIO_OK) fail(...);
 *     lmdbio_batch b;
 *     int st;
 *     while ((st = lmdbio_next(ld, &b)) != LMDBIO_DONE) {
 *         if (st == LMDBIO_END_OF_EPOCH) continue;   (one per epoch)
 *         if (st != LMDBIO_OK) fail(lmdbio_last_error());
 *         for (size_t i = 0; i < b.count; i++) use(b.values[i], b.value_lens[i]);
 *     }
 *     lmdbio_close(ld);
 *     lmdbio_finalize();
 *
 * Build with the flags of lib/pkgconfig/lmdbio.pc:
 *     cc prog.c $(pkg-config --cflags --libs lmdbio)
 * (with PKG_CONFIG_PATH pointing at lib/pkgconfig). The program itself needs
 * no MPI headers; an MPI program (mpicc) works the same way.
 *
 * STATUS CODES
 * Every function but lmdbio_version, lmdbio_abi_version, lmdbio_last_error
 * and lmdbio_status_string returns a status: LMDBIO_OK (0), a positive
 * status that is not an error (the end of an epoch, the end of the last
 * epoch), or a negative error status. A call refused for its arguments
 * (a bad handle, a NULL pointer, a busy handle, a bad option) has no other
 * effect than setting the error message. A failure while reading sticks:
 * every later lmdbio_next on that handle returns it again.
 *
 * ERROR MESSAGES
 * lmdbio_last_error() returns the message of the last call that returned a
 * negative status ON THE CALLING THREAD (the message is per thread, not per
 * handle). It stays valid until that thread's next failing lmdbio call; it
 * is "" if no call failed on the thread. Messages are one line, e.g.
 * "/data/train_lmdb: not an LMDB file".
 *
 * MPI
 * lmdbio_init is collective: every rank calls it. If the program has
 * already initialised MPI (MPI_Initialized is true, as in Caffe-MPI),
 * lmdbio joins that MPI: it uses its own duplicate of MPI_COMM_WORLD, leaves
 * the program's error handlers alone and never finalises MPI; the program
 * must then have asked for MPI_THREAD_MULTIPLE (MPI_Init_thread), because
 * lmdbio calls MPI from its own threads, and must close every loader (and
 * call lmdbio_finalize) before its own MPI_Finalize. Otherwise lmdbio_init
 * initialises MPI itself and finalises it in lmdbio_finalize, or at process
 * exit if the program never calls lmdbio_finalize. lmdbio must be linked
 * against the same MPI library as the program.
 *
 * AGENT MODE
 * A process that lmdbio run --agent started (LMDBIO_AGENT_SOCKET is set, with
 * torchrun's RANK, LOCAL_RANK, WORLD_SIZE, ...) uses no MPI at all: lmdbio_init
 * connects to the lmdbio agent of its node, the node's reader, and the
 * collective calls (lmdbio_open, lmdbio_allreduce_sum_u64) go through the
 * agents, which agree across nodes; lmdbio_get_topology gives torchrun's
 * numbering (rank = node * local_size + local_rank). Every learner of the
 * job makes the same collective calls in the same order; one that differs,
 * or that exits while the others wait in a call, makes that call fail on
 * every learner with a message that names it. If the agent dies, the
 * learner's next call fails with a message that says so. The process may
 * still initialise MPI for itself (mpi4py, torch.distributed's MPI
 * backend): lmdbio does not use it.
 *
 * THREADS
 * - lmdbio_init and lmdbio_finalize: call them from one thread (the thread
 *   that initialises MPI becomes MPI's main thread).
 * - A loader handle is used by one thread at a time. A call on a handle
 *   while another thread is inside a call on the same handle returns
 *   LMDBIO_ERR_BUSY and does nothing; it never blocks or crashes. Different
 *   handles may be used from different threads at once.
 * - The views of a batch (keys, values, lengths, records) stay valid until
 *   the next lmdbio_next or lmdbio_close on the same handle, from any thread.
 *   They point into shared memory that other processes read too: never
 *   write through them.
 * - lmdbio_open, lmdbio_close, lmdbio_allreduce_sum_u64 are collective over
 *   the job (every rank calls them, in the same order); lmdbio_state,
 *   lmdbio_info and lmdbio_next are not.
 *
 * BAD INPUT
 * A NULL handle, a handle that was closed or never opened, a NULL pointer
 * argument, an unknown option, a header that does not match the library:
 * each returns an error status and a message, never a crash. Internal
 * failures of lmdbio itself are caught and returned as LMDBIO_ERR_INTERNAL.
 */
#ifndef LMDBIO_H
#define LMDBIO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* LMDBIO_ABI_VERSION changes whenever this header changes incompatibly
 * (a function, a struct or the meaning of a status). Pass it to
 * lmdbio_init, which refuses a library built from another version. */
#define LMDBIO_ABI_VERSION 2

/* LMDBIO_VERSION is the release this header comes from. */
#define LMDBIO_VERSION "0.1.0"

/* Statuses. Positive: not an error. Negative: an error; see
 * lmdbio_last_error. */
enum lmdbio_status {
	LMDBIO_OK = 0,
	LMDBIO_END_OF_EPOCH = 1, /* lmdbio_next: the epoch ended; no batch */
	LMDBIO_DONE = 2,         /* lmdbio_next: every epoch ended; no batch */

	LMDBIO_ERR_HANDLE = -1,   /* NULL, closed or unknown loader handle */
	LMDBIO_ERR_ARGUMENT = -2, /* a NULL pointer, an unknown option, a bad option value */
	LMDBIO_ERR_BUSY = -3,     /* another thread is inside a call on this handle */
	LMDBIO_ERR_VERSION = -4,  /* the header's ABI version is not the library's */
	LMDBIO_ERR_STATE = -5,    /* lmdbio_init not called, or lmdbio_finalize already called */
	LMDBIO_ERR_LAUNCH = -6,   /* the job was launched, MPI initialised or a launch setting (LMDBIO_RANKS_PER_NODE,
	                             LMDBIO_STARTUP_TIMEOUT) given in a way lmdbio cannot work with */
	LMDBIO_ERR_INPUT = -7,    /* the dataset is missing, unreadable, corrupt or unsupported */
	LMDBIO_ERR_RUNTIME = -8,  /* I/O, MPI or another rank failed */
	LMDBIO_ERR_INTERNAL = -9  /* a bug in lmdbio, caught before it reached the program */
};

/* An open dataset: one learner's stream of batches. Opaque. */
typedef struct lmdbio_loader lmdbio_loader;

/* One batch, filled by lmdbio_next. Every array has count entries. */
typedef struct lmdbio_batch {
	size_t count;                  /* samples in the batch; may be 0 */
	int64_t epoch;                 /* 0-based epoch the batch belongs to */
	const int64_t *records;        /* record numbers in the dataset's order */
	const uint8_t *const *keys;    /* key of each sample */
	const size_t *key_lens;        /* length of each key in bytes */
	const uint8_t *const *values;  /* value of each sample */
	const size_t *value_lens;      /* length of each value in bytes */
	const uint8_t *const *labels;  /* label of each sample (an HDF5 file's labels
	                                  dataset, the row's bytes); length 0 without */
	const size_t *label_lens;      /* length of each label in bytes */
} lmdbio_batch;

/* The element types of lmdbio_images.dtype. */
enum {
	LMDBIO_DTYPE_UINT8 = 0,
	LMDBIO_DTYPE_FLOAT16 = 1, /* IEEE 754 half precision */
	LMDBIO_DTYPE_FLOAT32 = 2
};

/* The prepped samples of the current batch (the prep= option), filled by
 * lmdbio_batch_images. Valid, like the batch, until the next lmdbio_next or
 * lmdbio_close. */
typedef struct lmdbio_images {
	const void *data;      /* the tensor: shape[0] samples back to back, native byte order */
	size_t bytes;          /* bytes of data */
	int64_t shape[4];      /* (B, H, W, C), or (B, C, H, W) when chw */
	int dtype;             /* LMDBIO_DTYPE_* */
	int chw;               /* 1 when shape is (B, C, H, W) */
	const int64_t *labels; /* shape[0] labels: each Datum's label */
} lmdbio_images;

/* What lmdbio_info tells about an open loader. */
typedef struct lmdbio_loader_info {
	int64_t records;  /* records in the dataset */
	int64_t batches;  /* batches this learner gets in the epoch lmdbio_next is in
	                     (the same on every rank; a resumed epoch has only the rest) */
	int64_t epochs;   /* epochs of the run, from epoch 0 */
	int64_t batch;    /* records per full batch */
	int64_t epoch;    /* the epoch lmdbio_next is in (a resumed run starts in a later one) */
} lmdbio_loader_info;

/* Where this process stands in the job. */
typedef struct lmdbio_topology {
	int rank, size;             /* in the job */
	int node, nodes;            /* node id (0-based) and number of nodes */
	int local_rank, local_size; /* among the ranks of this node */
} lmdbio_topology;

/* lmdbio_version returns the library's release, e.g. "0.1.0". */
const char *lmdbio_version(void);

/* lmdbio_abi_version returns the ABI version the library was built with. */
int lmdbio_abi_version(void);

/* lmdbio_last_error returns the calling thread's last error message. */
const char *lmdbio_last_error(void);

/* lmdbio_status_string names a status: "LMDBIO_OK", "LMDBIO_ERR_BUSY", ... */
const char *lmdbio_status_string(int status);

/* lmdbio_init checks that abi_version (pass LMDBIO_ABI_VERSION) is the
 * library's, joins or initialises MPI and works out the job's topology
 * (LMDBIO_RANKS_PER_NODE=k makes k consecutive ranks one node). Collective.
 * In a learner of lmdbio run --agent it connects to the node's agent
 * instead, and MPI is left alone. Calling it again returns LMDBIO_OK;
 * calling it after lmdbio_finalize returns LMDBIO_ERR_STATE. It returns
 * LMDBIO_ERR_LAUNCH, with a message saying how to launch the job, for a job
 * whose processes each see an MPI world of one although the launcher
 * started several (torchrun's RANK and WORLD_SIZE without an agent, or srun
 * without the right --mpi), and for a bad value of LMDBIO_RANKS_PER_NODE or
 * LMDBIO_STARTUP_TIMEOUT (MPI is then left untouched).
 *
 * LMDBIO_STARTUP_TIMEOUT (a duration such as 30s; 3m when unset) bounds
 * what lmdbio_init calls in MPI: MPI_Init, when lmdbio initialises MPI, and
 * the collectives that work out the topology (also when the program
 * initialised MPI). Ranks that cannot reach each other (a network,
 * firewall or MPI transport setting) make some MPI libraries wait there
 * forever, and a call blocked inside MPI cannot return. So when the limit
 * passes, lmdbio_init does not return: it ENDS THE PROCESS with exit status
 * 1 and one line on stderr, "lmdbio: MPI did not finish starting in ...",
 * at once, without running the program's exit handlers (atexit, Python's),
 * which could call into the blocked MPI; the launcher then ends the other
 * ranks. Only the job's first rank (as the launcher numbered it) prints
 * the line, so a job says it once, however many ranks time out. Nothing is watched once lmdbio_init has returned, nor in a learner
 * of an agent. */
int lmdbio_init(int abi_version);

/* lmdbio_finalize closes every loader still open and, if lmdbio_init
 * initialised MPI, finalises it (a learner of an agent closes its
 * connection: it makes no more collective calls). Collective. Calling it
 * again is a no-op. */
int lmdbio_finalize(void);

/* lmdbio_abort ends the job at once, for a process that failed while the
 * other ranks may be waiting for it in a collective call (which would then
 * wait forever): it prints one line on stderr naming this rank, its host
 * and what (e.g. "raised ValueError: bad sample"; NULL for "failed"), and
 * ends every rank with MPI_Abort(status), without finalising anything. A
 * learner of an agent exits with status instead, and its agent ends the
 * job. It does not return, except when there is nothing to end (before
 * lmdbio_init, after lmdbio_finalize, or in a job of one process): then it
 * returns LMDBIO_OK. Not collective. The exit handler that lmdbio_init
 * registers when it initialises MPI does the same for a process that exits
 * with a status other than 0, instead of finalising, unless the last
 * lmdbio_open failed (every rank got that failure and exits of it). */
int lmdbio_abort(int status, const char *what);

/* lmdbio_get_topology fills *out. Needs lmdbio_init. */
int lmdbio_get_topology(lmdbio_topology *out);

/* lmdbio_open opens the dataset at path (an LMDB directory or its data.mdb,
 * or an HDF5 file) and stores a new handle in *out. Collective: every rank
 * passes the same path and options; every rank fails if any rank fails,
 * with the same status (each with its own message: a rank that found
 * nothing wrong names the rank that refused the path or options). An empty
 * path returns LMDBIO_ERR_ARGUMENT.
 *
 * options is NULL or a string of key=value words separated by spaces, the
 * lmdbio command's flags of the same names (docs/options.md says more):
 *   batch=N           records per learner batch (64)
 *   epochs=N          epochs to deliver (1)
 *   mode=MODE         reading mode: lmdb, lmm, lmm+dio, lmm+dio+prov,
 *                     lmm+dio+prov+coal, lmm+dio+prov+coal+stag, or default
 *                     (all optimisations) (default)
 *   remainder=pad|drop-last|keep
 *                     records that do not fill a round: pad (repeat records to
 *                     fill it), drop-last, or keep (every record exactly once;
 *                     short last batches) (pad)
 *   shuffle=none|file|chunk|global|local
 *                     order of every epoch: none (key order, as LMDB's cursor
 *                     walks it), file (the file's order), chunk (shuffled
 *                     chunks of the file), global (a random permutation) or
 *                     local (each node shuffles its own share) (none)
 *   seed=N            seed of the shuffles (0)
 *   chunk=SIZE        shuffle chunk: about the bytes of values per chunk (their
 *                     number is rounded to whole windows) (64MiB)
 *   chunk-window=N    shuffle chunk: chunks whose records are shuffled together
 *                     (8)
 *   locality=on|off   locality-aware assignment for chunk and global: learners
 *                     first take the records their node holds (on, off) (on)
 *   cache=auto|off|SIZE
 *                     shared memory per node for a cache of the samples it
 *                     loaded, never evicted: a size, auto (what fits; none for
 *                     a single unshuffled epoch (shuffle none or file), which
 *                     reads no sample twice) or off (also 0) (auto)
 *   views=auto|on|off
 *                     learners read values through a read-only mapping of the
 *                     data file where that is safe: on, off, or auto (for a
 *                     single epoch or without a cache) (auto)
 *   dataset=NAME      HDF5: the dataset whose rows are the records (default
 *                     data)
 *   labels=NAME       HDF5: the labels dataset delivered with the rows (default
 *                     label, if the file has one; none for no labels)
 *   direct=true|false
 *                     read the data file with O_DIRECT, bypassing the page
 *                     cache (false)
 *   stagger=N         node readers on storage at once (with the stag
 *                     optimisation) (4)
 *   window=SIZE       bytes a node reads per window (coalescing) (64MiB)
 *   prefetch=N        windows read ahead of the learners (2)
 *   max-span=SIZE     largest single read (16MiB)
 *   max-gap=SIZE      unneeded bytes read through to merge two reads (1MiB)
 *   io-depth=N        reads in flight per node reader (8)
 *   prep=SPEC|none    decode and augment image records into one tensor per
 *                     batch, on the learner's node cores ahead of it: steps
 *                     separated by commas, arguments after a colon (decode,
 *                     center_crop:S, random_resized_crop:S, resize:S, flip,
 *                     normalize:imagenet|M1/M2/M3,S1/S2/S3, chw,
 *                     float16|float32), or none (raw records); up to prefetch
 *                     batches ahead, (prefetch+1) x batch x C x H x W x the
 *                     element's bytes per learner; without a final crop each
 *                     record becomes a decoded Datum instead (for Caffe) (none)
 *   prep-threads=N|auto
 *                     threads that prep each learner's batches: N, or auto (the
 *                     node's cores shared among its learners, at least 1)
 *                     (auto)
 *   resume=STATE      continue the run a state describes (lmdbio_state,
 *                     Loader.state(), digest --state-out), also with another
 *                     number of learners (same dataset, shuffle, seed and
 *                     global batch size): the state itself when it starts with
 *                     '{' (a JSON object, which may hold spaces), else the path
 *                     of a file that holds it
 * SIZE takes a unit (4096, 64KiB, 4MiB, 1GB). An unknown key, a key given
 * twice or a bad value returns LMDBIO_ERR_ARGUMENT naming the key; a resume
 * state that is missing, damaged or does not fit the run returns
 * LMDBIO_ERR_INPUT. */
int lmdbio_open(const char *path, const char *options, lmdbio_loader **out);

/* lmdbio_open_resume is lmdbio_open continuing the run that state
 * describes, instead of a resume= word in options: state is the document
 * lmdbio_state wrote (a JSON object, which may hold spaces) or, when it
 * does not start with '{', the path of a file that holds one. A NULL or
 * empty state opens a fresh run, as lmdbio_open does. options with a
 * resume= word besides a state return LMDBIO_ERR_ARGUMENT; a state that is
 * missing, damaged or does not fit the run returns LMDBIO_ERR_INPUT.
 * Collective, as lmdbio_open. */
int lmdbio_open_resume(const char *path, const char *options, const char *state, lmdbio_loader **out);

/* lmdbio_next fills *batch with this learner's next batch and returns
 * LMDBIO_OK; at the end of each epoch it returns LMDBIO_END_OF_EPOCH once,
 * and after the last epoch LMDBIO_DONE. With any status but LMDBIO_OK,
 * *batch is zeroed (count 0, NULL arrays). The previous
 * batch's views become invalid. Every rank gets the same number of batches
 * per epoch. */
int lmdbio_next(lmdbio_loader *loader, lmdbio_batch *batch);

/* lmdbio_batch_images fills *out with the prepped tensor and labels of the
 * batch the last lmdbio_next returned, on a loader opened with prep=SPEC
 * (whose batches then have NULL values and labels; keys and records are as
 * without prep). After a status other than LMDBIO_OK from lmdbio_next,
 * *out is zeroed. Without prep it returns LMDBIO_ERR_ARGUMENT. A pipeline
 * without a final crop (prep=decode) has no tensor (data NULL): its
 * batches' values are decoded Caffe Datums instead (3 channels of uint8,
 * channel-major BGR, encoded false, the label kept), which Caffe reads
 * without decoding. */
int lmdbio_batch_images(lmdbio_loader *loader, lmdbio_images *out);

/* lmdbio_info fills *out. */
int lmdbio_info(lmdbio_loader *loader, lmdbio_loader_info *out);

/* lmdbio_state writes where the run is, a JSON document for resume=, into
 * buf (cap bytes, NUL-terminated) and its length without the NUL into *len:
 * the epoch lmdbio_next is in and the batches of it delivered so far.
 * Every learner gets the same state at the same step (after as many
 * lmdbio_next calls), so one of them may save it. With buf NULL and cap 0 it
 * only sets *len; a buffer too small returns LMDBIO_ERR_ARGUMENT and sets
 * *len. */
int lmdbio_state(lmdbio_loader *loader, char *buf, size_t cap, size_t *len);

/* lmdbio_close ends the learner's part and invalidates the handle (a later
 * call with it returns LMDBIO_ERR_HANDLE). On a node's reader rank it waits
 * until every learner of the node has closed. Collective. */
int lmdbio_close(lmdbio_loader *loader);

/* lmdbio_allreduce_sum_u64 replaces values[0..n-1] on every rank by their
 * sums over all ranks, modulo 2^64. Collective; n is the same on every rank.
 * For programs without MPI of their own (a digest, a sample count). */
int lmdbio_allreduce_sum_u64(uint64_t *values, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* LMDBIO_H */
