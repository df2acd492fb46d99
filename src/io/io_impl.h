/*
 * src/io: MPI-IO (the MPI_File_* chapter), a layer above src/mpi. It uses the
 * MPI layer's datatypes (their flattened maps), communicators and requests,
 * and reaches other processes only through PMPI collectives on a private
 * duplicate of the file's communicator.
 *
 * A file handle is MPICH's ABI type, a pointer to struct ADIOI_FileD (the
 * tag is ROMIO's; the members are ours). Live files are kept in a table so a
 * handle is validated without dereferencing garbage, and the table index is
 * the Fortran handle (MPI_File_c2f).
 *
 * Data path: an access of n bytes at a view position is flattened into a
 * list of (file offset, length) pieces (io_view.c); independent accesses do
 * pread/pwrite of the pieces or, when they are many and close together,
 * data sieving (io_posix.c); collective ones exchange the pieces so that a
 * few aggregators issue large contiguous accesses (io_coll.c).
 */
#ifndef RCH_IO_IMPL_H
#define RCH_IO_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "mpi/mpi_impl.h"

/* Hints (ROMIO's names). Tristate values of the romio_* switches. A larger
 * cb_buffer_size is taken as this: a window buffer of more gains nothing,
 * and window arithmetic stays far from overflow. */
#define RCH_IO_CB_MAX ((MPI_Offset)1 << 30)
enum { RCH_IO_AUTO = 0, RCH_IO_ENABLE = 1, RCH_IO_DISABLE = 2 };
struct rch_io_hints {
    MPI_Offset cb_buffer_size;     /* bytes an aggregator moves per round */
    int cb_nodes;                  /* aggregators (default: one per node) */
    int cb_read, cb_write;         /* romio_cb_read / romio_cb_write */
    int ds_read, ds_write;         /* romio_ds_read / romio_ds_write */
    MPI_Offset ind_rd_buffer_size; /* data sieving windows */
    MPI_Offset ind_wr_buffer_size;
    MPI_Offset striping_unit;      /* aggregator domains are aligned to it (0: none) */
    MPI_Offset write_behind;       /* rdmach_write_behind: writes of at least this many bytes
                                    * start their write-back at once (0: never) */
};

/* One contiguous range of the file. */
struct rch_io_piece {
    MPI_Offset off;
    MPI_Offset len;
};

struct ADIOI_FileD {
    uint32_t magic;                /* RCH_IO_MAGIC while open */
    int index;                     /* in the file table: the Fortran handle */
    int fd;
    char *name;
    int amode;
    MPI_Comm comm;                 /* a private duplicate of the user's communicator */
    int rank, size;
    MPI_Errhandler errhandler;
    int atomic;
    struct rch_io_hints hints;
    int *aggr;                     /* [naggr] comm ranks of the aggregators, ascending */
    int naggr;
    void *cb_work;                 /* collective buffering's per-rank arrays (io_coll.c) */
    /* the view */
    MPI_Offset disp;
    MPI_Datatype etype, filetype;  /* as the user gave them (uet, uft: retained) */
    struct rch_mpi_type *uet, *uft;
    struct rch_mpi_type *et, *ft;  /* their layouts in the file (io_ftype.c; the same types in
                                    * native), retained while they are the view's */
    MPI_Offset *ft_prefix;         /* [ft->nblocks + 1]: data bytes before each filetype block */
    char datarep[MPI_MAX_DATAREP_STRING];
    int external32;                /* file data is big-endian external32 */
    const struct rch_io_datarep *urep;  /* a user representation (MPI_Register_datarep), or NULL */
    MPI_Offset fp;                 /* individual file pointer, in etypes of the view */
    /* shared file pointer: a side file holding the pointer, locked with fcntl */
    int shfd;
    char *shname;
    /* split collective in progress (one per file): its request, or its
     * argument error (split_req MPI_REQUEST_NULL) */
    int split_active;
    int split_err;
    MPI_Request split_req;
    /* non-blocking accesses (io_nb.c) */
    MPI_Comm acomm;                /* another duplicate: only their outcome agreements */
    int nb_pending;                /* accesses of this file not yet complete */
    unsigned nb_posted, nb_agreed; /* collective ones posted, and whose agreement has started */
};
#define RCH_IO_MAGIC 0x46494c45u

/* ---- the file table and errors (io_file.c) ---- */
/* The file of a handle, or NULL (MPI_FILE_NULL, closed, garbage). */
struct ADIOI_FileD *rch_io_file_get(MPI_File fh);
/* Report an error of class cls on f (NULL: on MPI_FILE_NULL, whose handler
 * is the default for new files), message formatted; invokes the file's
 * error handler and returns the code. */
int rch_io_err(struct ADIOI_FileD *f, int cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same for an existing error code. */
int rch_io_raise(struct ADIOI_FileD *f, int code);
/* An errno to an MPI error class. */
int rch_io_class_of_errno(int e);
/* Validate fh for fn: the file, or NULL with *err = the reported MPI_ERR_FILE. */
struct ADIOI_FileD *rch_io_file_arg(const char *fn, MPI_File fh, int *err);
/* rch_io_file_arg, and out (the argument named arg) must not be NULL. */
struct ADIOI_FileD *rch_io_file_query(const char *fn, MPI_File fh, const void *out, const char *arg, int *err);
/* 0 for e == 0, else an error code (not raised) naming fn, the file and errno's text. */
int rch_io_errno_code(const char *fn, const struct ADIOI_FileD *f, int e);
/* Did every rank of comm pass this v? (collective) */
int rch_io_same(MPI_Comm comm, long v);
/* The hints of info applied onto h (unknown keys ignored). */
void rch_io_hints_parse(struct rch_io_hints *h, MPI_Info info);
/* Collective over f->comm: MPI_SUCCESS if every rank's local code is
 * success; else every rank reports (on f) an error, its own if it failed,
 * else the class of the highest failing rank naming that rank. raised: the
 * local code was already reported (not raised again). */
int rch_io_agree(struct ADIOI_FileD *f, const char *fn, int local_code, int raised);

/* ---- views (io_view.c) ---- */
void rch_io_view_default(struct ADIOI_FileD *f);       /* disp 0, MPI_BYTE, MPI_BYTE, native */
void rch_io_view_release(struct ADIOI_FileD *f);
/* The pieces of the file holding view data bytes [pos, pos + n) (pos in
 * bytes of view data, etype units times the etype size), adjacent pieces
 * merged. *out is malloc'ed (NULL if n is 0). MPI_SUCCESS or MPI_ERR_NO_MEM. */
int rch_io_view_pieces(const struct ADIOI_FileD *f, MPI_Offset pos, MPI_Offset n, struct rch_io_piece **out,
                       int *npieces);
/* View data bytes located before file byte `off`. */
MPI_Offset rch_io_view_data_before(const struct ADIOI_FileD *f, MPI_Offset off);

/* ---- POSIX access (io_posix.c) ---- */
/* Whole pread/pwrite (retrying short transfers); a read stops at end of
 * file: *done is the bytes transferred. 0 or an errno. */
int rch_io_pread(int fd, void *buf, size_t len, MPI_Offset off, size_t *done);
int rch_io_pwrite(int fd, const void *buf, size_t len, MPI_Offset off);
/* rch_io_pwrite to f's data file, then, for a write of at least
 * hints.write_behind bytes, the start of its write-back (write-behind: the
 * device works while the next data is produced, and a later
 * MPI_File_sync finds less to wait for). 0 or an errno. */
int rch_io_write(const struct ADIOI_FileD *f, const void *buf, size_t len, MPI_Offset off);
/* The same for n buffers that are consecutive bytes of the file from off
 * (a gather write; iov is consumed). 0 or an errno. */
struct iovec;
int rch_io_writev(const struct ADIOI_FileD *f, struct iovec *iov, int n, MPI_Offset off);
/* Byte-range lock of [off, off + len) (len 0: to the end), waiting: type
 * F_RDLCK, F_WRLCK or F_UNLCK. 0 or an errno. */
int rch_io_lock(int fd, int type, MPI_Offset off, MPI_Offset len);
/* The pieces' data from/to the contiguous buf, with data sieving when the
 * hints allow and it pays (lock=1: sieving writes lock their window; 0 when
 * the caller holds a lock over everything). Reads: *got is the data bytes
 * before the first byte past the end of the file. 0 or an errno. */
int rch_io_access(const struct ADIOI_FileD *f, int is_write, const struct rch_io_piece *p, int n, char *buf,
                  int lock, MPI_Offset *got);

/* ---- data access (io_rw.c) ---- */
/* Where an access starts. */
enum { RCH_IO_AT = 0, RCH_IO_INDIV, RCH_IO_SHARED };
struct rch_io_op {
    const char *fn;
    struct ADIOI_FileD *f;
    int is_write;
    int where;                     /* RCH_IO_* */
    MPI_Offset offset;             /* RCH_IO_AT: etypes into the view */
    void *buf;
    MPI_Count count;
    MPI_Datatype dt;
    int collective;
    MPI_Offset xsize;              /* file bytes of one element of dt (rch_io_check) */
};
/* Check an access's arguments: MPI_SUCCESS or the reported error. */
int rch_io_check(struct rch_io_op *op);
/* The bytes of op's datatype in memory that got bytes of file data are
 * (whole elements when the file's representation converts). */
MPI_Offset rch_io_native_bytes(const struct rch_io_op *op, const struct rch_mpi_type *t, MPI_Offset got);
/* Perform an (already checked) access: status filled, the file pointer
 * moved. Collective ones are collective over the file's communicator.
 * Returns the MPI error code (reported). */
int rch_io_do(struct rch_io_op *op, MPI_Status *status);
/* The memory side of op packed into *data (op->buf itself when it is
 * contiguous native data) and its view byte position *pos, the shared
 * pointer moved (ordered: collective). 0 or an errno (*data may be set). */
int rch_io_prepare(struct rch_io_op *op, const struct rch_mpi_type *t, char **data, MPI_Offset *pos);
/* A read's data (got bytes of it) back to op->buf, and data freed unless it
 * is op->buf. 0 or an errno (a failed conversion). */
int rch_io_unpack_out(const struct ADIOI_FileD *f, const struct rch_io_op *op, const struct rch_mpi_type *t,
                      char *data, MPI_Offset nbytes, MPI_Offset got);
/* The checked access in one call (the blocking entry points). */
int rch_io_blocking(struct rch_io_op *op, MPI_Status *status);
/* Independent access of nbytes of packed data at view byte position pos
 * (the bytes read are in *got). 0 or an errno. */
int rch_io_indep(struct ADIOI_FileD *f, int is_write, MPI_Offset pos, char *data, MPI_Offset nbytes,
                 MPI_Offset *got);

/* ---- non-blocking accesses (io_nb.c) ---- */
/* Start op (non-blocking and split collective forms): arguments checked,
 * memory side packed, position taken and the file pointer moved at the
 * call; the transfer itself, and for a collective op the agreement on its
 * outcome, advance in the device's progress engine. *request completes
 * through MPI_Test/Wait. A collective op whose arguments fail here still
 * joins the agreement, so the other ranks' requests fail instead of
 * waiting. Returns the (reported) error code. */
int rch_io_nb_start(struct rch_io_op *op, MPI_Request *request);
/* Progress until every non-blocking access of f is complete (close). */
void rch_io_nb_drain(struct ADIOI_FileD *f);

/* ---- collective buffering (io_coll.c) ---- */
/* Two-phase access of nbytes packed data at view byte position pos by every
 * rank of f. Returns 0 or the errno of this rank's part (the caller agrees
 * on the outcome); *got as for rch_io_indep. */
int rch_io_coll(struct ADIOI_FileD *f, int is_write, MPI_Offset pos, char *data, MPI_Offset nbytes,
                MPI_Offset *got);
/* Pick the aggregators of f (f->aggr, f->naggr) from its hints: collective. */
int rch_io_coll_aggregators(struct ADIOI_FileD *f);
/* Does a collective access in this direction go through collective
 * buffering (the same answer on every rank)? */
int rch_io_coll_applies(const struct ADIOI_FileD *f, int is_write);
/* rch_io_coll as a state machine that a non-blocking request advances
 * (io_nb.c), in caller-provided memory of rch_io_cb_size() bytes. nb: its
 * collectives are started on f->acomm and advanced by progress (the caller
 * runs one such access of f at a time, in posting order); else on f->comm,
 * completed at once. abort: this rank's arguments failed: it moves nothing
 * and the access stops on every rank after the first exchange. */
struct rch_io_cb;
size_t rch_io_cb_size(void);
void rch_io_cb_init(struct rch_io_cb *cb, struct ADIOI_FileD *f, int nb, int abort, int is_write, MPI_Offset pos,
                    char *data, MPI_Offset nbytes);
/* Run the steps whose collectives are complete, until one is in flight or
 * the access is done (its buffers freed): the steps run (0: nothing
 * happened, as progress hooks count). */
unsigned rch_io_cb_advance(struct rch_io_cb *cb);
int rch_io_cb_done(const struct rch_io_cb *cb);
/* A done access's outcome: 0 or this rank's errno, *got as for
 * rch_io_coll; *indep: the ranks' ranges did not interleave, nothing was
 * moved, the caller accesses independently (ROMIO's automatic rule). */
int rch_io_cb_result(const struct rch_io_cb *cb, MPI_Offset *got, int *indep);
/* Has the non-blocking request completed (without progressing anything:
 * callable from a progress hook)? */
int rch_io_req_done(MPI_Request req);

/* ---- shared file pointer (io_shared.c) ---- */
int rch_io_shared_open(struct ADIOI_FileD *f);         /* collective; 0 or an errno */
void rch_io_shared_close(struct ADIOI_FileD *f);       /* collective: rank 0 removes the side file */
/* Atomically: *old = the pointer, pointer += delta (etypes). 0 or an errno. */
int rch_io_shared_fetch_add(struct ADIOI_FileD *f, MPI_Offset delta, MPI_Offset *old);
int rch_io_shared_set(struct ADIOI_FileD *f, MPI_Offset value);

/* ---- types in a non-native representation (io_ftype.c) ---- */
/* File bytes of one named (predefined) type t: its external32 size, its
 * size from u's extent function, or (neither) its native size; -1 if it has
 * none. */
MPI_Aint rch_io_named_file_size(int external32, const struct rch_io_datarep *u, MPI_Datatype t);
/* File bytes of the data of one element of dt (its type signature's items
 * at their file sizes); -1 if an item has none. */
MPI_Offset rch_io_file_size(int external32, const struct rch_io_datarep *u, MPI_Datatype dt);
/* dt's layout in the file (MPI-4.1 14.5.1), retained (release it); NULL if
 * dt cannot be laid out in that representation. */
struct rch_mpi_type *rch_io_file_layout(int external32, const struct rch_io_datarep *u, MPI_Datatype dt);

/* ---- user data representations (io_datarep.c) ---- */
struct rch_io_datarep;
const struct rch_io_datarep *rch_io_datarep_find(const char *name);   /* NULL if not registered */
/* d's extent function on predefined type t (-1 if it fails). */
MPI_Aint rch_io_datarep_extent(const struct rch_io_datarep *d, MPI_Datatype t);
/* Has d a conversion function in this direction? */
int rch_io_datarep_converts(const struct rch_io_datarep *d, int to_file);
/* Convert count elements of dt between userbuf and the packed filebuf
 * (their type-map items at their file sizes). 0 or EILSEQ. */
int rch_io_datarep_convert(const struct rch_io_datarep *d, int to_file, void *userbuf, MPI_Datatype dt,
                           MPI_Count count, void *filebuf);

#endif
