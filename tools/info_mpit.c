/*
 * rdmach-info --mpit: what a tool sees through MPI_T (docs/MPIT.md), asked
 * through MPI_T itself before MPI_Init: every control variable with its
 * type, scope and value, every performance variable with its class, the
 * categories and the event types.
 */
#include <stdio.h>
#include <string.h>
#include "mpi.h"
#include "info_mpit.h"

static const char *type_name(MPI_Datatype t)
{
    return t == MPI_INT ? "int" : t == MPI_UNSIGNED_LONG_LONG ? "unsigned long long" : t == MPI_CHAR ? "char"
         : t == MPI_DOUBLE ? "double" : t == MPI_COUNT ? "MPI_Count" : t == MPI_UNSIGNED ? "unsigned" : "?";
}

static const char *class_name(int c)
{
    static const char *const names[] = { "state", "level", "size", "percentage", "highwatermark",
                                         "lowwatermark", "counter", "aggregate", "timer", "generic" };
    return c >= MPI_T_PVAR_CLASS_STATE && c <= MPI_T_PVAR_CLASS_GENERIC ? names[c - MPI_T_PVAR_CLASS_STATE] : "?";
}

/* The cvar's value as text; an enumeration's item by name. */
static void cvar_value(int i, MPI_Datatype dt, MPI_T_enum e, char *out, size_t cap)
{
    MPI_T_cvar_handle h;
    int count;
    char buf[1024];
    snprintf(out, cap, "?");
    if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS)
        return;
    if (MPI_T_cvar_read(h, buf) == MPI_SUCCESS) {
        if (dt == MPI_CHAR) {
            snprintf(out, cap, "\"%s\"", buf);
        } else if (dt == MPI_UNSIGNED_LONG_LONG) {
            unsigned long long v;
            memcpy(&v, buf, sizeof(v));
            snprintf(out, cap, "%llu", v);
        } else {
            int v, num = 0;
            memcpy(&v, buf, sizeof(v));
            snprintf(out, cap, "%d", v);
            if (e != MPI_T_ENUM_NULL && MPI_T_enum_get_info(e, &num, NULL, NULL) == MPI_SUCCESS)
                for (int k = 0; k < num; k++) {
                    char item[64];
                    int len = sizeof(item), val;
                    if (MPI_T_enum_get_item(e, k, &val, item, &len) == MPI_SUCCESS && val == v)
                        snprintf(out, cap, "%s", item);
                }
        }
    }
    MPI_T_cvar_handle_free(&h);
}

static void print_cvars(void)
{
    int n = 0;
    MPI_T_cvar_get_num(&n);
    printf("MPI_T control variables (%d; scope readonly: read at start-up, set it in the environment; "
           "local: MPI_T_cvar_write after MPI_Init):\n", n);
    for (int i = 0; i < n; i++) {
        char name[96], value[1100];
        int len = sizeof(name), scope, count;
        MPI_Datatype dt;
        MPI_T_enum e;
        if (MPI_T_cvar_get_info(i, name, &len, NULL, &dt, &e, NULL, NULL, NULL, &scope) != MPI_SUCCESS)
            continue;
        MPI_T_cvar_handle h;
        count = 1;
        if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) == MPI_SUCCESS)
            MPI_T_cvar_handle_free(&h);
        cvar_value(i, dt, e, value, sizeof(value));
        printf("  %3d %-32s %s%s%s  %s = %s\n", i, name, e != MPI_T_ENUM_NULL ? "enum " : "", type_name(dt),
               count > 1 ? "[]" : "", scope == MPI_T_SCOPE_LOCAL ? "local" : "readonly", value);
    }
}

static void print_pvars(void)
{
    int n = 0;
    MPI_T_pvar_get_num(&n);
    printf("\nMPI_T performance variables (%d; continuous, counting from MPI_Init):\n", n);
    for (int i = 0; i < n; i++) {
        char name[96], desc[512];
        int len = sizeof(name), dlen = sizeof(desc), cls, ro;
        MPI_Datatype dt;
        if (MPI_T_pvar_get_info(i, name, &len, NULL, &cls, &dt, NULL, desc, &dlen, NULL, &ro, NULL, NULL) ==
            MPI_SUCCESS)
            printf("  %3d %-26s %-13s %-18s %s\n      %s\n", i, name, class_name(cls), type_name(dt),
                   ro ? "read-only" : "resettable", desc);
    }
}

static void print_categories(void)
{
    int n = 0;
    MPI_T_category_get_num(&n);
    printf("\nMPI_T categories (%d):\n", n);
    for (int c = 0; c < n; c++) {
        char name[64], desc[256];
        int len = sizeof(name), dlen = sizeof(desc), nc, np, ns, ne = 0;
        if (MPI_T_category_get_info(c, name, &len, desc, &dlen, &nc, &np, &ns) != MPI_SUCCESS)
            continue;
        MPI_T_category_get_num_events(c, &ne);
        printf("  %3d %-14s %2d cvars %2d pvars %d events %d subcategories: %s\n", c, name, nc, np, ne, ns, desc);
    }
    MPI_T_event_get_num(&n);
    printf("\nMPI_T events (%d; source 0: CLOCK_MONOTONIC, ns):\n", n);
    for (int e = 0; e < n; e++) {
        char name[64], desc[512];
        int len = sizeof(name), dlen = sizeof(desc), nel = 0;
        if (MPI_T_event_get_info(e, name, &len, NULL, NULL, NULL, &nel, NULL, NULL, desc, &dlen, NULL) ==
            MPI_SUCCESS)
            printf("  %3d %s (%d elements)\n      %s\n", e, name, nel, desc);
    }
}

int rch_info_print_mpit(void)
{
    int provided;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "rdmach-info: MPI_T_init_thread failed (a malformed RDMACH_* variable?)\n");
        return 1;
    }
    print_cvars();
    print_pvars();
    print_categories();
    MPI_T_finalize();
    return 0;
}
