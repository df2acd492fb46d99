/*
 * Redirecting the calls other objects make to a few functions, by rewriting
 * their relocations (GOT entries), the way UCX's ucm "reloc" mode and
 * libfabric's memhooks do — instead of defining those functions in the
 * library, which would make every program's malloc/free/munmap ours (and
 * break sanitizer runtimes, LD_PRELOADed allocators and debuggers' ones).
 *
 * For each loaded object (dl_iterate_phdr) the PLT (DT_JMPREL) and data
 * (DT_RELA) relocations of type JUMP_SLOT / GLOB_DAT naming one of the
 * hooked functions are pointed at the hook; a slot inside RELRO is made
 * writable for the store and read-only again. The hook calls the definition
 * the whole process binds to (dlsym(RTLD_DEFAULT), resolved by the caller
 * before patching: the sanitizer's or preloaded allocator's if there is one).
 *
 * A slot is patched only if it holds that definition, or still points into
 * its own object (a lazy-binding stub that would resolve to it): an object
 * bound to another definition (RTLD_DEEPBIND, a private allocator) keeps it,
 * so memory never crosses allocators. Every patched slot is recorded and
 * rch_net_reloc_restore() puts the old values back, so no object keeps a
 * pointer into this library once the last user is gone.
 *
 * Skipped: the dynamic linker and the vDSO (their relocations are their
 * own), sanitizer runtimes (they reach the real functions themselves), and
 * the C library: its own calls (stdio buffers, thread start-up) never
 * release memory a program handed to MPI, and sanitizer runtimes make them
 * before their per-thread state exists (ThreadSanitizer crashed in a hook
 * that pthread_getattr_np's realloc reached while a thread started).
 * Not seen: objects loaded after the patching (dlopen later); a call made
 * inside an object that does not go through its GOT (libc's internal
 * munmap from free: hence free itself is hooked).
 *
 * Supported on ELF64 x86_64 and aarch64; elsewhere rch_net_reloc_supported()
 * is 0 and the caller falls back (net_memhook.c).
 */
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "base/log.h"
#include "rdma/net/net_reloc.h"

#if defined(__x86_64__)
#define RELOC_JUMP_SLOT R_X86_64_JUMP_SLOT
#define RELOC_GLOB_DAT  R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define RELOC_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define RELOC_GLOB_DAT  R_AARCH64_GLOB_DAT
#endif

#define MAX_PATCHED 1024

/* What was rewritten, to put back. Guarded by the caller's lock. */
static struct {
    void **slot;
    void *old, *hook;
} patched[MAX_PATCHED];
static int npatched;

int rch_net_reloc_supported(void)
{
#ifdef RELOC_JUMP_SLOT
    return 1;
#else
    return 0;
#endif
}

#ifdef RELOC_JUMP_SLOT

struct walk {
    const struct rch_net_reloc_hook *hooks;
    int nhooks;
    int full;                          /* the record is full: patched no more */
};

static int skipped_object(const char *name)
{
    static const char *const skip[] = { "linux-vdso", "linux-gate", "/ld-linux", "/ld64.so", "/libc.so",
                                        "libasan.so", "libtsan.so", "libubsan.so", "liblsan.so", "libclang_rt" };
    for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
        if (strstr(name, skip[i]) != NULL)
            return 1;
    return 0;
}

/* Some dynamic linkers leave d_ptr unrelocated (an offset from the base). */
static uintptr_t dyn_ptr(const struct dl_phdr_info *info, uintptr_t v)
{
    return v < info->dlpi_addr ? v + info->dlpi_addr : v;
}

/* Is a inside a segment of this type (PT_LOAD: the object; PT_GNU_RELRO:
 * read-only after relocation)? */
static int in_segment(const struct dl_phdr_info *info, uintptr_t a, ElfW(Word) type)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == type && a >= s && a < s + ph->p_memsz)
            return 1;
    }
    return 0;
}

static int store(void **slot, void *value, int relro)
{
    uintptr_t ps = (uintptr_t)sysconf(_SC_PAGESIZE);
    void *page = (void *)((uintptr_t)slot & ~(ps - 1));
    if (relro && mprotect(page, ps, PROT_READ | PROT_WRITE) != 0)
        return -1;
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    if (relro)
        mprotect(page, ps, PROT_READ);
    return 0;
}

static void patch_relocs(struct dl_phdr_info *info, struct walk *w, const ElfW(Rela) *rel, size_t n,
                         const ElfW(Sym) *symtab, const char *strtab)
{
    for (size_t i = 0; i < n && !w->full; i++) {
        unsigned long type = ELF64_R_TYPE(rel[i].r_info);
        if (type != RELOC_JUMP_SLOT && type != RELOC_GLOB_DAT)
            continue;
        const char *name = strtab + symtab[ELF64_R_SYM(rel[i].r_info)].st_name;
        for (int h = 0; h < w->nhooks; h++) {
            const struct rch_net_reloc_hook *hk = &w->hooks[h];
            if (strcmp(name, hk->name) != 0)
                continue;
            void **slot = (void **)(info->dlpi_addr + rel[i].r_offset);
            void *cur = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
            if (cur == hk->hook || (cur != hk->next && !in_segment(info, (uintptr_t)cur, PT_LOAD)))
                break;
            if (npatched == MAX_PATCHED) {
                RCH_WARN("net", "memory monitor: more than %d relocations to rewrite; %s of %s is not watched",
                         MAX_PATCHED, name, info->dlpi_name[0] ? info->dlpi_name : "the program");
                w->full = 1;
                break;
            }
            if (store(slot, hk->hook, in_segment(info, (uintptr_t)slot, PT_GNU_RELRO)) == 0)
                patched[npatched].slot = slot, patched[npatched].hook = hk->hook, patched[npatched++].old = cur;
            break;
        }
    }
}

static int patch_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct walk *w = arg;
    if (skipped_object(info->dlpi_name))
        return 0;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (dyn == NULL)
        return 0;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) *jmprel = NULL, *rela = NULL;
    size_t njmprel = 0, nrela = 0;
    int pltrel_is_rela = 1;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym) *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const char *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_JMPREL: jmprel = (const ElfW(Rela) *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_PLTRELSZ: njmprel = dyn->d_un.d_val / sizeof(ElfW(Rela)); break;
        case DT_PLTREL: pltrel_is_rela = dyn->d_un.d_val == DT_RELA; break;
        case DT_RELA: rela = (const ElfW(Rela) *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_RELASZ: nrela = dyn->d_un.d_val / sizeof(ElfW(Rela)); break;
        default: break;
        }
    }
    if (symtab == NULL || strtab == NULL)
        return 0;
    if (jmprel != NULL && pltrel_is_rela)
        patch_relocs(info, w, jmprel, njmprel, symtab, strtab);
    if (rela != NULL)
        patch_relocs(info, w, rela, nrela, symtab, strtab);
    return 0;
}

int rch_net_reloc_patch(const struct rch_net_reloc_hook *hooks, int nhooks)
{
    struct walk w = { .hooks = hooks, .nhooks = nhooks };
    int before = npatched;
    dl_iterate_phdr(patch_object, &w);
    return npatched - before;
}

/* Where a recorded slot lives now, if its object is still loaded. */
struct find {
    uintptr_t slot;
    int found, relro;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct find *f = arg;
    if (!in_segment(info, f->slot, PT_LOAD))
        return 0;
    f->found = 1;
    f->relro = in_segment(info, f->slot, PT_GNU_RELRO);
    return 1;
}

void rch_net_reloc_restore(void)
{
    /* An object may have been unloaded since (dlclose): only a slot of an
     * object still loaded, still holding our hook, is written back. */
    while (npatched > 0) {
        npatched--;
        struct find f = { .slot = (uintptr_t)patched[npatched].slot };
        dl_iterate_phdr(find_object, &f);
        if (f.found && __atomic_load_n(patched[npatched].slot, __ATOMIC_ACQUIRE) == patched[npatched].hook)
            store(patched[npatched].slot, patched[npatched].old, f.relro);
    }
}

#else

int rch_net_reloc_patch(const struct rch_net_reloc_hook *hooks, int nhooks)
{
    return 0;
}

void rch_net_reloc_restore(void)
{
}

#endif
