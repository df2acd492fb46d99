/*
 * Optional libraries opened on demand (dlopen), not linked: libfabric,
 * libibverbs, librdmacm and libpmix pull in some twenty libraries (psm,
 * psm2, efa, libnl, libevent, munge, ...) and their constructors, which
 * every rank would pay at exec even when all its peers are on its node
 * (libinfinipath's constructor alone sleeps ~100 times). A layer that uses
 * such a library defines, in one file, a wrapper per function it calls
 * with RCH_DL_FN/RCH_DL_VOID: same name and prototype as the library's
 * (the library's header, included there, checks them), hidden in librdmach.
 * The wrapper binds the library's symbol at its first call with dlvsym (the
 * version the linker would have bound, so a newer library keeps the ABI the
 * code was built against). The layer's entry point (a channel's query, the
 * PMIx bootstrap) calls rch_base_dl_open first and reports its error; a
 * wrapper called while the library cannot be opened ends the process with
 * the reason, since it has no error value of its own to return.
 */
#ifndef RCH_BASE_DL_H
#define RCH_BASE_DL_H

#include "rdmach.h"

struct rch_base_dl {
    const char *soname;    /* "libfabric.so.1" */
    const char *what;      /* the feature it serves, for messages: "the libfabric channel" */
    int global;            /* RTLD_GLOBAL: its own plugins link against its symbols (libpmix's MCA) */
    void *handle;          /* set once opened (atomically: any thread may open) */
};

/* Open lib once (later calls only test the handle). UNSUPPORTED, with
 * dlerror's reason and what needs it, if it cannot be opened. */
rdmach_status_t rch_base_dl_open(struct rch_base_dl *lib);
/* The function `name` of lib at `version` (NULL: an unversioned library),
 * opening lib if needed; never NULL (ends the process instead). */
void *rch_base_dl_sym(struct rch_base_dl *lib, const char *name, const char *version);

/* libfabric (dl_ofi.c): the ofi channel's get_info and the ofi barrier
 * open it before their first call. */
extern struct rch_base_dl rch_base_dl_ofi;

#define RCH_DL_BIND_(lib, name, version)                                                       \
    static __typeof__(name) *fn_;                                                              \
    __typeof__(name) *f_ = __atomic_load_n(&fn_, __ATOMIC_ACQUIRE);                            \
    if (__builtin_expect(f_ == NULL, 0)) {                                                     \
        f_ = (__typeof__(name) *)rch_base_dl_sym(&(lib), #name, version);                      \
        __atomic_store_n(&fn_, f_, __ATOMIC_RELEASE);                                          \
    }
/* The wrapper of `ret name params` that calls it with `args`; (name) is
 * parenthesised because some headers also define the name as a macro. */
#define RCH_DL_FN(lib, version, ret, name, params, args) \
    ret(name) params                                     \
    {                                                    \
        RCH_DL_BIND_(lib, name, version)                 \
        return f_ args;                                  \
    }
#define RCH_DL_VOID(lib, version, name, params, args) \
    void(name) params                                 \
    {                                                 \
        RCH_DL_BIND_(lib, name, version)              \
        f_ args;                                      \
    }

#endif
