/* Optional libraries opened on demand (dl.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/base.h"
#include "base/dl.h"
#include "base/log.h"

static pthread_mutex_t dl_lock = PTHREAD_MUTEX_INITIALIZER;

rdmach_status_t rch_base_dl_open(struct rch_base_dl *lib)
{
    if (__atomic_load_n(&lib->handle, __ATOMIC_ACQUIRE) != NULL)
        return RDMACH_OK;
    rdmach_status_t st = RDMACH_OK;
    pthread_mutex_lock(&dl_lock);
    if (lib->handle == NULL) {
        void *h = dlopen(lib->soname, RTLD_NOW | (lib->global ? RTLD_GLOBAL : RTLD_LOCAL));
        if (h == NULL) {
            const char *why = dlerror();
            st = rch_base_err(RDMACH_ERR_UNSUPPORTED, "%s needs %s, which cannot be loaded: %s", lib->what,
                              lib->soname, why ? why : "unknown reason");
        } else {
            RCH_DEBUG("dl", "loaded %s for %s", lib->soname, lib->what);
            __atomic_store_n(&lib->handle, h, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&dl_lock);
    return st;
}

void *rch_base_dl_sym(struct rch_base_dl *lib, const char *name, const char *version)
{
    if (rch_base_dl_open(lib) != RDMACH_OK) {
        fprintf(stderr, "rdmach: %s\n", rdmach_last_error());
        abort();
    }
    void *f = version ? dlvsym(lib->handle, name, version) : dlsym(lib->handle, name);
    if (f == NULL) {
        const char *why = dlerror();
        fprintf(stderr, "rdmach: %s has no %s%s%s (%s), which %s calls\n", lib->soname, name,
                version ? "@" : "", version ? version : "", why ? why : "not found", lib->what);
        abort();
    }
    return f;
}
