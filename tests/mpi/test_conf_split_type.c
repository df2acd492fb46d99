/*
 * MPI_Comm_split_type by the letter of MPI 4.1 7.4.2 and MPICH's extension:
 *  - MPI_COMM_TYPE_SHARED: the ranks of my node (RDMACH_VNODE_SIZE k makes
 *    pretend nodes of k consecutive ranks; otherwise one host here);
 *  - MPI_COMM_TYPE_HW_GUIDED with "mpi_hw_resource_type": "mpi_shared_memory"
 *    is SHARED; an hwloc type groups the ranks of my node whose binding lies
 *    inside the same object, found here with hwloc independently of the
 *    library; a rank not inside one such object, an unknown value and no
 *    info give MPI_COMM_NULL;
 *  - MPI_COMM_TYPE_RESOURCE_GUIDED (MPI 4.1): "mpi_hw_resource_type" as
 *    HW_GUIDED (the same communicators for every type above); without it,
 *    "mpi_pset_name" groups the ranks of the named process set (mpi://WORLD:
 *    all, in any case; mpi://SELF: each alone; mpix://SHARED: my node); an
 *    unknown set or neither key: MPI_COMM_NULL;
 *  - MPI_COMM_TYPE_HW_UNGUIDED: a strict subset, the same at every member,
 *    named by "mpi_hw_resource_type" in Comm_get_info and in the info the
 *    caller passed ("the MPI implementation sets the info key"), made of
 *    exactly the ranks inside one object of that type (checked with hwloc);
 *    or MPI_COMM_NULL at every rank;
 *  - MPIX_COMM_TYPE_NEIGHBORHOOD with "nbhd_common_dirname": the ranks that
 *    see the same directory (one machine: all; a directory of one's own:
 *    oneself; a missing directory or no info: MPI_COMM_NULL).
 *  - the values are MPICH 4.2's (RESOURCE_GUIDED 4, NEIGHBORHOOD 5), and a
 *    program built with MPICH 4.1's header, where NEIGHBORHOOD was 4, still
 *    gets a neighborhood split from 4 with "nbhd_common_dirname".
 * Keys order the result (key = -rank reverses it). Never an abort.
 */
#include <hwloc.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mpi_test.h"

static int size, rank, node;
static char unguided_level[MPI_MAX_INFO_VAL + 1] = "none (MPI_COMM_NULL)";
static hwloc_topology_t topo;
static hwloc_bitmap_t mine;

/* The logical index of the object of type name containing my binding, -1 if none. */
static int where(const char *name)
{
    hwloc_obj_type_t type;
    if (hwloc_type_sscanf(name, &type, NULL, 0) < 0)
        return -1;
    hwloc_obj_t o = NULL;
    while ((o = hwloc_get_next_obj_by_type(topo, type, o)) != NULL)
        if (o->cpuset && hwloc_bitmap_isincluded(mine, o->cpuset))
            return (int)o->logical_index;
    return -1;
}

/* Checks that c holds exactly the ranks r with in[r] (in reversed rank
 * order, key = -rank), or is MPI_COMM_NULL when !in[rank]. */
static void expect(MPI_Comm c, const int *in, const char *what)
{
    if (!in[rank]) {
        CHECK(c == MPI_COMM_NULL, "%s: expected MPI_COMM_NULL", what);
        return;
    }
    CHECK(c != MPI_COMM_NULL, "%s: got MPI_COMM_NULL", what);
    int n = 0, cs, got[64], want[64];
    for (int r = size - 1; r >= 0; r--)
        if (in[r])
            want[n++] = r;
    MPI_OK(MPI_Comm_size(c, &cs));
    CHECK(cs == n, "%s: size %d, expected %d", what, cs, n);
    MPI_OK(MPI_Allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, c));
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: rank %d is world %d, expected %d", what, i, got[i], want[i]);
}

/* in[r] = rank r is on my node with the same value (my value must not be -1). */
static void same(int value, int *in)
{
    int all[2 * 64], me[2] = { node, value };
    MPI_OK(MPI_Allgather(me, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        in[r] = value >= 0 && all[2 * r] == node && all[2 * r + 1] == value;
}

static MPI_Comm split(int type, const char *key, const char *value)
{
    MPI_Info info = MPI_INFO_NULL;
    if (key) {
        MPI_OK(MPI_Info_create(&info));
        MPI_OK(MPI_Info_set(info, key, value));
    }
    MPI_Comm c;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, type, -rank, info, &c));
    if (key)
        MPI_OK(MPI_Info_free(&info));
    return c;
}

static void guided(void)
{
    static const char *const names[] = { "Machine", "Package", "NUMANode", "L3Cache", "L2Cache",
                                         "L1Cache", "Core", "PU" };
    int in[64];
    MPI_Comm c = split(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "mpi_shared_memory");
    same(0, in);
    expect(c, in, "HW_GUIDED mpi_shared_memory");
    MPI_Comm s;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &s));
    expect(s, in, "MPI_COMM_TYPE_SHARED");
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Comm_free(&s));
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char what[64];
        snprintf(what, sizeof(what), "HW_GUIDED %s", names[i]);
        c = split(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", names[i]);
        same(where(names[i]), in);
        expect(c, in, what);
        if (c != MPI_COMM_NULL)
            MPI_OK(MPI_Comm_free(&c));
        snprintf(what, sizeof(what), "RESOURCE_GUIDED %s", names[i]);
        c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_hw_resource_type", names[i]);
        expect(c, in, what);
        if (c != MPI_COMM_NULL)
            MPI_OK(MPI_Comm_free(&c));
    }
    c = split(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "NoSuchResource");
    CHECK(c == MPI_COMM_NULL, "HW_GUIDED with an unknown resource gave a communicator");
    c = split(MPI_COMM_TYPE_HW_GUIDED, NULL, NULL);
    CHECK(c == MPI_COMM_NULL, "HW_GUIDED without info gave a communicator");
}

/* RESOURCE_GUIDED: mpi_shared_memory, process sets, and what gives no
 * communicator. */
static void resource_guided(void)
{
    int in[64];
    MPI_Comm c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_hw_resource_type", "mpi_shared_memory");
    same(0, in);
    expect(c, in, "RESOURCE_GUIDED mpi_shared_memory");
    MPI_OK(MPI_Comm_free(&c));
    c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpix://SHARED");
    expect(c, in, "RESOURCE_GUIDED mpi_pset_name mpix://SHARED");
    MPI_OK(MPI_Comm_free(&c));
    static const char *const world[] = { "mpi://WORLD", "mpi://world" };
    for (int i = 0; i < 2; i++) {
        char what[64];
        snprintf(what, sizeof(what), "RESOURCE_GUIDED mpi_pset_name %s", world[i]);
        c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", world[i]);
        for (int r = 0; r < size; r++)
            in[r] = 1;
        expect(c, in, what);
        MPI_OK(MPI_Comm_free(&c));
    }
    c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://SELF");
    for (int r = 0; r < size; r++)
        in[r] = r == rank;
    expect(c, in, "RESOURCE_GUIDED mpi_pset_name mpi://SELF");
    MPI_OK(MPI_Comm_free(&c));
    c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://no-such-set");
    CHECK(c == MPI_COMM_NULL, "RESOURCE_GUIDED with an unknown process set gave a communicator");
    c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_hw_resource_type", "NoSuchResource");
    CHECK(c == MPI_COMM_NULL, "RESOURCE_GUIDED with an unknown resource gave a communicator");
    c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, NULL, NULL);
    CHECK(c == MPI_COMM_NULL, "RESOURCE_GUIDED without info gave a communicator");
    /* some ranks give a key, the others none: they get MPI_COMM_NULL, and
     * the call completes everywhere */
    c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, rank % 2 ? NULL : "mpi_hw_resource_type", "mpi_shared_memory");
    int mine_in[64];
    same(0, mine_in);
    for (int r = 0; r < size; r++)
        in[r] = mine_in[r] && r % 2 == 0;
    expect(c, in, "RESOURCE_GUIDED mpi_shared_memory at even ranks only");
    if (c != MPI_COMM_NULL)
        MPI_OK(MPI_Comm_free(&c));
}

static void unguided(void)
{
    MPI_Info given;
    MPI_OK(MPI_Info_create(&given));
    MPI_Comm c;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, -rank, given, &c));
    int got = c != MPI_COMM_NULL, n_got;
    MPI_OK(MPI_Allreduce(&got, &n_got, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(n_got == 0 || n_got == size, "HW_UNGUIDED: %d of %d ranks got a communicator", n_got, size);
    if (size == 1)
        CHECK(!got, "HW_UNGUIDED of one rank cannot be a strict subset");
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1] = "", given_value[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0, given_flag = 0;
    MPI_OK(MPI_Info_get(given, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, given_value, &given_flag));
    MPI_OK(MPI_Info_free(&given));
    CHECK(given_flag == got, "HW_UNGUIDED: mpi_hw_resource_type %s in the caller's info, and %s communicator",
          given_flag ? "set" : "not set", got ? "a" : "no");
    if (!got)
        return;
    MPI_OK(MPI_Comm_get_info(c, &info));
    MPI_OK(MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, value, &flag));
    MPI_OK(MPI_Info_free(&info));
    CHECK(flag, "HW_UNGUIDED: no mpi_hw_resource_type in the new communicator's info");
    CHECK(strcmp(value, given_value) == 0, "HW_UNGUIDED: the communicator's level %s, the caller's info's %s", value,
          given_value);
    strcpy(unguided_level, value);
    int cs;
    MPI_OK(MPI_Comm_size(c, &cs));
    CHECK(cs < size, "HW_UNGUIDED: size %d is not a strict subset of %d", cs, size);
    int in[64];
    same(where(value), in);
    char what[MPI_MAX_INFO_VAL + 32];
    snprintf(what, sizeof(what), "HW_UNGUIDED at %s", value);
    expect(c, in, what);
    /* the same level everywhere */
    int len = (int)strlen(value), maxlen, minlen;
    MPI_OK(MPI_Allreduce(&len, &maxlen, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    MPI_OK(MPI_Allreduce(&len, &minlen, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    CHECK(maxlen == minlen, "HW_UNGUIDED: levels differ between ranks");
    /* a duplicate keeps the hint */
    MPI_Comm d;
    MPI_OK(MPI_Comm_dup(c, &d));
    MPI_OK(MPI_Comm_get_info(d, &info));
    char v2[MPI_MAX_INFO_VAL + 1] = "";
    MPI_OK(MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, v2, &flag));
    MPI_OK(MPI_Info_free(&info));
    CHECK(flag && strcmp(v2, value) == 0, "Comm_dup lost mpi_hw_resource_type");
    MPI_OK(MPI_Comm_free(&d));
    /* Comm_dup_with_info takes the hints of its info argument instead */
    MPI_Info empty;
    MPI_OK(MPI_Info_create(&empty));
    MPI_OK(MPI_Comm_dup_with_info(c, empty, &d));
    MPI_OK(MPI_Info_free(&empty));
    MPI_OK(MPI_Comm_get_info(d, &info));
    MPI_OK(MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, v2, &flag));
    MPI_OK(MPI_Info_free(&info));
    CHECK(!flag, "Comm_dup_with_info(empty info) kept mpi_hw_resource_type %s", v2);
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_free(&c));
}

static void neighborhood(void)
{
    int in[64];
    char dir[256], own[300];
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    /* a directory every rank sees */
    MPI_Comm c = split(MPIX_COMM_TYPE_NEIGHBORHOOD, "nbhd_common_dirname", tmp);
    for (int r = 0; r < size; r++)
        in[r] = 1;
    expect(c, in, "NEIGHBORHOOD common directory");
    MPI_OK(MPI_Comm_free(&c));
    /* a directory of one's own: alone */
    int pid0 = (int)getpid();
    MPI_OK(MPI_Bcast(&pid0, 1, MPI_INT, 0, MPI_COMM_WORLD));
    snprintf(dir, sizeof(dir), "%s/rdmach-conf-nbhd-%d", tmp, pid0);
    snprintf(own, sizeof(own), "%s-%d", dir, rank);
    CHECK(mkdir(own, 0700) == 0, "mkdir %s", own);
    c = split(MPIX_COMM_TYPE_NEIGHBORHOOD, "nbhd_common_dirname", own);
    for (int r = 0; r < size; r++)
        in[r] = r == rank;
    expect(c, in, "NEIGHBORHOOD own directory");
    MPI_OK(MPI_Comm_free(&c));
    CHECK(rmdir(own) == 0, "rmdir %s: a marker file was left behind", own);
    /* a directory that does not exist, no info: MPI_COMM_NULL */
    c = split(MPIX_COMM_TYPE_NEIGHBORHOOD, "nbhd_common_dirname", "/nonexistent/rdmach");
    CHECK(c == MPI_COMM_NULL, "NEIGHBORHOOD of a missing directory gave a communicator");
    c = split(MPIX_COMM_TYPE_NEIGHBORHOOD, NULL, NULL);
    CHECK(c == MPI_COMM_NULL, "NEIGHBORHOOD without info gave a communicator");
    /* MPICH 4.2's values; 4 with "nbhd_common_dirname" is MPICH 4.1's
     * NEIGHBORHOOD, also at ranks that pass no info */
    CHECK(MPI_COMM_TYPE_RESOURCE_GUIDED == 4 && MPIX_COMM_TYPE_NEIGHBORHOOD == 5,
          "split types RESOURCE_GUIDED %d NEIGHBORHOOD %d, MPICH 4.2 has 4 and 5", MPI_COMM_TYPE_RESOURCE_GUIDED,
          MPIX_COMM_TYPE_NEIGHBORHOOD);
    c = split(4, "nbhd_common_dirname", tmp);
    for (int r = 0; r < size; r++)
        in[r] = 1;
    expect(c, in, "split_type 4 with nbhd_common_dirname (MPICH 4.1's NEIGHBORHOOD)");
    MPI_OK(MPI_Comm_free(&c));
    c = split(4, rank == 0 ? "nbhd_common_dirname" : NULL, tmp);
    for (int r = 0; r < size; r++)
        in[r] = r == 0;
    expect(c, in, "split_type 4 with nbhd_common_dirname at rank 0 only");
    if (c != MPI_COMM_NULL)
        MPI_OK(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mt_rank = rank;
    CHECK(size <= 64, "at most 64 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *k = getenv("RDMACH_VNODE_SIZE");
    node = k && atoi(k) > 0 ? rank / atoi(k) : 0;     /* one host otherwise */
    CHECK(hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0, "hwloc topology");
    mine = hwloc_bitmap_alloc();
    if (hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS) < 0)
        hwloc_bitmap_copy(mine, hwloc_topology_get_allowed_cpuset(topo));
    guided();
    resource_guided();
    unguided();
    neighborhood();
    MPI_Comm c = split(MPI_UNDEFINED, NULL, NULL);
    CHECK(c == MPI_COMM_NULL, "split_type MPI_UNDEFINED gave a communicator");
    hwloc_bitmap_free(mine);
    hwloc_topology_destroy(topo);
    MPI_Finalize();
    if (rank == 0)
        printf("test_conf_split_type: %d ranks ok (HW_UNGUIDED split at %s)\n", size, unguided_level);
    return 0;
}
