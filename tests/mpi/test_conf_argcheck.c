/*
 * The error class of an invalid argument, by the letter of MPI 4.1 9.4
 * (Table 9.1: MPI_ERR_COMM an invalid communicator, MPI_ERR_TYPE datatype,
 * MPI_ERR_GROUP, MPI_ERR_INFO, MPI_ERR_REQUEST, MPI_ERR_SESSION,
 * MPI_ERR_TOPOLOGY a communicator without the topology asked for,
 * MPI_ERR_DIMS, MPI_ERR_RANK, MPI_ERR_COUNT, MPI_ERR_ARG the rest), for the
 * families of exported functions the other tests call only on the success
 * path: the MPI-3 _x queries, names and info of communicators, datatypes
 * and sessions, Info_get_string/Info_create_env, the MPI-4.1 status
 * accessors and Request_get_status_*, topology queries, MPI-4.1 buffer
 * calls, Type_get_value_index, Get_library_version. Each error's message
 * must name the function called and the argument (rdmach's rule). Then the
 * success path of the same calls against values the standard defines.
 * Local calls: the same on every rank. Any number of ranks.
 */
#include "conf_table.h"

static int rank, size;

/* Handles and results the calls below write (never read on error). */
static MPI_Count cnt, cnt2;
static int i1, i2, i3, flag;
static MPI_Info inf;
static MPI_Comm newc;
static MPI_Request req;
static MPI_Datatype dt;
static MPI_Group grp;
static char str[MPI_MAX_INFO_VAL + 1];

static void types_and_status(void)
{
    MPI_Status st;
    memset(&st, 0, sizeof st);
    const struct conf_bad b[] = {
        { MPI_Type_size_x(MPI_DATATYPE_NULL, &cnt), MPI_ERR_TYPE, "MPI_Type_size_x", "datatype" },
        { MPI_Type_size_x(MPI_INT, NULL), MPI_ERR_ARG, "MPI_Type_size_x", "size" },
        { MPI_Type_get_extent_x(MPI_DATATYPE_NULL, &cnt, &cnt2), MPI_ERR_TYPE, "MPI_Type_get_extent_x", "datatype" },
        { MPI_Type_get_extent_x(MPI_INT, NULL, &cnt2), MPI_ERR_ARG, "MPI_Type_get_extent_x", "lb" },
        { MPI_Type_get_extent_x(MPI_INT, &cnt, NULL), MPI_ERR_ARG, "MPI_Type_get_extent_x", "extent" },
        { MPI_Type_get_true_extent_x(MPI_DATATYPE_NULL, &cnt, &cnt2), MPI_ERR_TYPE, "MPI_Type_get_true_extent_x",
          "datatype" },
        { MPI_Type_get_true_extent_x(MPI_INT, NULL, &cnt2), MPI_ERR_ARG, "MPI_Type_get_true_extent_x", "true_lb" },
        { MPI_Get_elements_x(&st, MPI_DATATYPE_NULL, &cnt), MPI_ERR_TYPE, "MPI_Get_elements_x", "datatype" },
        { MPI_Get_elements_x(NULL, MPI_INT, &cnt), MPI_ERR_ARG, "MPI_Get_elements_x", "status" },
        { MPI_Get_elements_x(&st, MPI_INT, NULL), MPI_ERR_ARG, "MPI_Get_elements_x", "count" },
        { MPI_Status_set_elements_x(&st, MPI_DATATYPE_NULL, 1), MPI_ERR_TYPE, "MPI_Status_set_elements_x",
          "datatype" },
        { MPI_Status_set_elements_x(&st, MPI_INT, -1), MPI_ERR_COUNT, "MPI_Status_set_elements_x", "count" },
        { MPI_Status_set_elements(NULL, MPI_INT, 1), MPI_ERR_ARG, "MPI_Status_set_elements", "status" },
        { MPI_Status_set_cancelled(NULL, 1), MPI_ERR_ARG, "MPI_Status_set_cancelled", "status" },
        { MPI_Status_get_source(NULL, &i1), MPI_ERR_ARG, "MPI_Status_get_source", "status" },
        { MPI_Status_get_source(&st, NULL), MPI_ERR_ARG, "MPI_Status_get_source", "source" },
        { MPI_Status_get_tag(&st, NULL), MPI_ERR_ARG, "MPI_Status_get_tag", "tag" },
        { MPI_Status_get_error(&st, NULL), MPI_ERR_ARG, "MPI_Status_get_error", "error" },
        { MPI_Status_set_source(NULL, 0), MPI_ERR_ARG, "MPI_Status_set_source", "status" },
        { MPI_Status_set_tag(NULL, 0), MPI_ERR_ARG, "MPI_Status_set_tag", "status" },
        { MPI_Status_set_error(NULL, 0), MPI_ERR_ARG, "MPI_Status_set_error", "status" },
        { MPI_Type_get_name((MPI_Datatype)0x12345, str, &i1), MPI_ERR_TYPE, "MPI_Type_get_name", "datatype" },
        { MPI_Type_get_name(MPI_INT, str, NULL), MPI_ERR_ARG, "MPI_Type_get_name", "resultlen" },
        { MPI_Type_set_name(MPI_DATATYPE_NULL, "x"), MPI_ERR_TYPE, "MPI_Type_set_name", "datatype" },
        { MPI_Type_set_name(MPI_INT, NULL), MPI_ERR_ARG, "MPI_Type_set_name", "type_name" },
        { MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &dt), MPI_ERR_TYPE, "MPI_Type_get_value_index",
          "value_type" },
        { MPI_Type_get_value_index(MPI_INT, MPI_DATATYPE_NULL, &dt), MPI_ERR_TYPE, "MPI_Type_get_value_index",
          "index_type" },
        { MPI_Type_get_value_index(MPI_INT, MPI_INT, NULL), MPI_ERR_ARG, "MPI_Type_get_value_index", "pair_type" },
        { MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &dt), MPI_ERR_ARG, "MPI_Type_match_size", "size" },
        { MPI_Type_match_size(77, 4, &dt), MPI_ERR_ARG, "MPI_Type_match_size", "typeclass" },
    };
    conf_expect_all(b, CONF_N(b));

    /* MPI 4.1 18.2.5/3.2.5: the status accessors read back what was set;
     * MPI 4.1 5.1.6 MPI_Type_get_value_index: (MPI_INT, MPI_INT) is MPI_2INT,
     * (MPI_DOUBLE, MPI_INT) MPI_DOUBLE_INT, a pair with no predefined type
     * MPI_DATATYPE_NULL. */
    MPI_OK(MPI_Status_set_source(&st, 3));
    MPI_OK(MPI_Status_set_tag(&st, 44));
    MPI_OK(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE));
    MPI_OK(MPI_Status_get_source(&st, &i1));
    MPI_OK(MPI_Status_get_tag(&st, &i2));
    MPI_OK(MPI_Status_get_error(&st, &i3));
    CONF_TRUE(i1 == 3 && st.MPI_SOURCE == 3, "Status source %d / %d", i1, st.MPI_SOURCE);
    CONF_TRUE(i2 == 44 && st.MPI_TAG == 44, "Status tag %d / %d", i2, st.MPI_TAG);
    CONF_TRUE(i3 == MPI_ERR_TRUNCATE && st.MPI_ERROR == MPI_ERR_TRUNCATE, "Status error %d / %d", i3, st.MPI_ERROR);
    MPI_OK(MPI_Status_set_elements_x(&st, MPI_DOUBLE, 5));
    MPI_OK(MPI_Get_elements_x(&st, MPI_DOUBLE, &cnt));
    MPI_OK(MPI_Get_count(&st, MPI_DOUBLE, &i1));
    CONF_TRUE(cnt == 5 && i1 == 5, "Status_set_elements_x 5 doubles: elements %lld count %d", (long long)cnt, i1);
    MPI_OK(MPI_Type_get_value_index(MPI_INT, MPI_INT, &dt));
    CONF_TRUE(dt == MPI_2INT, "value_index(int,int) 0x%x, MPI_2INT 0x%x", (unsigned)dt, (unsigned)MPI_2INT);
    MPI_OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &dt));
    CONF_TRUE(dt == MPI_DOUBLE_INT, "value_index(double,int) 0x%x", (unsigned)dt);
    MPI_OK(MPI_Type_get_value_index(MPI_LONG_DOUBLE, MPI_INT, &dt));
    CONF_TRUE(dt == MPI_LONG_DOUBLE_INT, "value_index(long double,int) 0x%x", (unsigned)dt);
    MPI_OK(MPI_Type_get_value_index(MPI_FLOAT, MPI_INT, &dt));
    CONF_TRUE(dt == MPI_FLOAT_INT, "value_index(float,int) 0x%x", (unsigned)dt);
    MPI_OK(MPI_Type_get_value_index(MPI_LONG, MPI_INT, &dt));
    CONF_TRUE(dt == MPI_LONG_INT, "value_index(long,int) 0x%x", (unsigned)dt);
    MPI_OK(MPI_Type_get_value_index(MPI_SHORT, MPI_INT, &dt));
    CONF_TRUE(dt == MPI_SHORT_INT, "value_index(short,int) 0x%x", (unsigned)dt);
    MPI_OK(MPI_Type_get_value_index(MPI_INT, MPI_LONG, &dt));
    CONF_TRUE(dt == MPI_DATATYPE_NULL, "value_index(int,long) 0x%x, expected MPI_DATATYPE_NULL", (unsigned)dt);
    MPI_Datatype two;
    MPI_OK(MPI_Type_contiguous(1, MPI_INT, &two));                  /* a derived type, not predefined */
    MPI_OK(MPI_Type_get_value_index(two, MPI_INT, &dt));
    CONF_TRUE(dt == MPI_DATATYPE_NULL, "value_index(derived,int) 0x%x, expected MPI_DATATYPE_NULL", (unsigned)dt);
    MPI_OK(MPI_Type_free(&two));
    MPI_OK(MPI_Type_get_value_index(MPI_CHAR, MPI_DOUBLE, &dt));
    CONF_TRUE(dt == MPI_DATATYPE_NULL, "value_index(char,double) 0x%x, expected MPI_DATATYPE_NULL", (unsigned)dt);
    /* MPI 4.1 7.8: a predefined datatype's name is its own. */
    MPI_OK(MPI_Type_get_name(MPI_DOUBLE_INT, str, &i1));
    CONF_TRUE(strcmp(str, "MPI_DOUBLE_INT") == 0 && i1 == (int)strlen(str), "MPI_DOUBLE_INT's name \"%s\" (%d)", str, i1);
    MPI_OK(MPI_Type_size_x(MPI_DOUBLE_INT, &cnt));
    CONF_TRUE(cnt == (MPI_Count)(sizeof(double) + sizeof(int)), "Type_size_x(MPI_DOUBLE_INT) %lld", (long long)cnt);
    MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &dt));
    MPI_OK(MPI_Type_size_x(dt, &cnt));
    CONF_TRUE(cnt == 8, "Type_match_size(REAL, 8): a type of size %lld", (long long)cnt);
}

/* MPI 4.1 10.4 MPI_Info_get_string: buflen in is value's size; out the
 * value's length plus one; a shorter buffer gets buflen-1 characters and
 * a NUL; buflen 0 leaves value alone; a missing key: flag false, value
 * unchanged. MPI_Info_create_env: a new info, the user's to change and free. */
static void info_calls(void)
{
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "colour", "abcdef"));
    int len = sizeof str;
    MPI_OK(MPI_Info_get_string(info, "colour", &len, str, &flag));
    CONF_TRUE(flag && len == 7 && strcmp(str, "abcdef") == 0, "get_string whole: flag %d len %d \"%s\"", flag, len, str);
    len = 4;
    strcpy(str, "zzzzzzzz");
    MPI_OK(MPI_Info_get_string(info, "colour", &len, str, &flag));
    CONF_TRUE(flag && len == 7 && strcmp(str, "abc") == 0 && str[4] == 'z', "get_string 4: flag %d len %d \"%s\"", flag,
          len, str);
    len = 0;
    strcpy(str, "keep");
    MPI_OK(MPI_Info_get_string(info, "colour", &len, NULL, &flag));
    CONF_TRUE(flag && len == 7, "get_string 0: flag %d len %d", flag, len);
    len = 1;
    MPI_OK(MPI_Info_get_string(info, "colour", &len, str, &flag));
    CONF_TRUE(flag && len == 7 && str[0] == '\0' && str[1] == 'e', "get_string 1: len %d \"%s\"", len, str);
    len = 5;
    strcpy(str, "keep");
    MPI_OK(MPI_Info_get_string(info, "shape", &len, str, &flag));
    CONF_TRUE(!flag && strcmp(str, "keep") == 0, "get_string of a missing key: flag %d \"%s\"", flag, str);

    char longkey[MPI_MAX_INFO_KEY + 2];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    len = 8;
    MPI_Info freed;
    MPI_OK(MPI_Info_create(&freed));
    MPI_Info stale = freed;
    MPI_OK(MPI_Info_free(&freed));
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    const struct conf_bad b[] = {
        { MPI_Info_get_string(MPI_INFO_NULL, "colour", &len, str, &flag), MPI_ERR_INFO, "MPI_Info_get_string",
          "info" },
        { MPI_Info_get_string(stale, "colour", &len, str, &flag), MPI_ERR_INFO, "MPI_Info_get_string", "info" },
        { MPI_Info_get_string(info, longkey, &len, str, &flag), MPI_ERR_INFO_KEY, "MPI_Info_get_string", "key" },
        { MPI_Info_get_string(info, "colour", NULL, str, &flag), MPI_ERR_ARG, "MPI_Info_get_string", "buflen" },
        { MPI_Info_get_string(info, "colour", &len, str, NULL), MPI_ERR_ARG, "MPI_Info_get_string", "flag" },
        { MPI_Info_create_env(0, NULL, NULL), MPI_ERR_ARG, "MPI_Info_create_env", "info" },
        { MPI_Info_create_env(-1, NULL, &inf), MPI_ERR_ARG, "MPI_Info_create_env", "argc" },
        { MPI_Info_dup(stale, &inf), MPI_ERR_INFO, "MPI_Info_dup", "info" },
        { MPI_Info_get_valuelen(info, longkey, &i1, &flag), MPI_ERR_INFO_KEY, "MPI_Info_get_valuelen", "key" },
        { MPI_Comm_set_info(MPI_COMM_NULL, info), MPI_ERR_COMM, "MPI_Comm_set_info", "comm" },
        { MPI_Comm_set_info(c, stale), MPI_ERR_INFO, "MPI_Comm_set_info", "info" },
        { MPI_Comm_get_info(MPI_COMM_NULL, &inf), MPI_ERR_COMM, "MPI_Comm_get_info", "comm" },
        { MPI_Comm_get_info(c, NULL), MPI_ERR_ARG, "MPI_Comm_get_info", "info_used" },
        { MPI_Comm_dup_with_info(c, stale, &newc), MPI_ERR_INFO, "MPI_Comm_dup_with_info", "info" },
        { MPI_Comm_idup_with_info(MPI_COMM_NULL, info, &newc, &req), MPI_ERR_COMM, "MPI_Comm_idup_with_info",
          "comm" },
        { MPI_Comm_idup_with_info(c, stale, &newc, &req), MPI_ERR_INFO, "MPI_Comm_idup_with_info", "info" },
        { MPI_Comm_idup_with_info(c, info, NULL, &req), MPI_ERR_ARG, "MPI_Comm_idup_with_info", "newcomm" },
        { MPI_Comm_idup_with_info(c, info, &newc, NULL), MPI_ERR_ARG, "MPI_Comm_idup_with_info", "request" },
        { MPI_Get_hw_resource_info(NULL), MPI_ERR_ARG, "MPI_Get_hw_resource_info", "hw_info" },
    };
    conf_expect_all(b, CONF_N(b));

    MPI_Info env;
    int nenv, n;
    MPI_OK(MPI_Info_create_env(0, NULL, &env));
    MPI_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nenv));
    MPI_OK(MPI_Info_get_nkeys(env, &n));
    CONF_TRUE(n == nenv, "Info_create_env: %d keys, MPI_INFO_ENV %d", n, nenv);
    MPI_OK(MPI_Info_set(env, "mine", "1"));             /* the user's own object */
    MPI_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
    CONF_TRUE(n == nenv, "a key set on Info_create_env's object reached MPI_INFO_ENV");
    MPI_OK(MPI_Info_free(&env));

    /* MPI 4.1 7.4.4: the duplicate of Comm_idup_with_info is congruent and
     * usable once the request completes; Comm_get_info returns a new info
     * object each call (the caller frees it). */
    MPI_OK(MPI_Comm_idup_with_info(c, info, &newc, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CONF_TRUE(req == MPI_REQUEST_NULL, "the idup request is not MPI_REQUEST_NULL after Wait");
    MPI_OK(MPI_Comm_compare(c, newc, &i1));
    CONF_TRUE(i1 == MPI_CONGRUENT, "Comm_idup_with_info: compare %d, expected MPI_CONGRUENT", i1);
    int one = 1, sum = 0;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, newc));
    CONF_TRUE(sum == size, "Allreduce on the idup'd communicator %d, expected %d", sum, size);
    MPI_Info u1, u2;
    MPI_OK(MPI_Comm_get_info(newc, &u1));
    MPI_OK(MPI_Comm_get_info(newc, &u2));
    CONF_TRUE(u1 != u2 && u1 != MPI_INFO_NULL, "Comm_get_info returned the same object twice (0x%x)", (unsigned)u1);
    MPI_OK(MPI_Info_free(&u1));
    MPI_OK(MPI_Info_get_nkeys(u2, &n));                 /* still usable after u1's free */
    MPI_OK(MPI_Info_free(&u2));
    MPI_OK(MPI_Comm_free(&newc));
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Info_free(&info));
}

/* MPI 4.1 8.5.x: topology queries on a communicator without that topology
 * are MPI_ERR_TOPOLOGY; out-of-range directions and ranks MPI_ERR_ARG /
 * MPI_ERR_RANK. Then Cart_shift at the edges of a non-periodic dimension
 * gives MPI_PROC_NULL, and Cart_sub keeps the coordinates asked for. */
static void topology(void)
{
    int dims[2] = { size, 1 }, periods[2] = { 0, 1 }, remain[2] = { 1, 0 };
    MPI_Comm cart, graph, dist, sub;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    int index[1] = { 1 }, edges[1] = { 0 };         /* node 0, a self-loop */
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &sub));        /* a one-process graph */
    MPI_OK(MPI_Graph_create(sub, 1, index, edges, 0, &graph));
    MPI_OK(MPI_Comm_free(&sub));
    int src = (rank + size - 1) % size, dst = (rank + 1) % size;
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 1, &dst, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &dist));
    int nb[4], w;
    const struct conf_bad b[] = {
        { MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &i1, &i2), MPI_ERR_TOPOLOGY, "MPI_Cart_shift", "comm" },
        { MPI_Cart_shift(cart, 2, 1, &i1, &i2), MPI_ERR_ARG, "MPI_Cart_shift", "direction" },
        { MPI_Cart_shift(cart, -1, 1, &i1, &i2), MPI_ERR_ARG, "MPI_Cart_shift", "direction" },
        { MPI_Cart_shift(cart, 0, 1, NULL, &i2), MPI_ERR_ARG, "MPI_Cart_shift", "rank_source" },
        { MPI_Cart_sub(graph, remain, &sub), MPI_ERR_TOPOLOGY, "MPI_Cart_sub", "comm" },
        { MPI_Cart_sub(cart, NULL, &sub), MPI_ERR_ARG, "MPI_Cart_sub", "remain_dims" },
        { MPI_Cart_sub(cart, remain, NULL), MPI_ERR_ARG, "MPI_Cart_sub", "newcomm" },
        { MPI_Cartdim_get(graph, &i1), MPI_ERR_TOPOLOGY, "MPI_Cartdim_get", "comm" },
        { MPI_Cart_get(dist, 2, dims, periods, nb), MPI_ERR_TOPOLOGY, "MPI_Cart_get", "comm" },
        { MPI_Graph_neighbors_count(cart, 0, &i1), MPI_ERR_TOPOLOGY, "MPI_Graph_neighbors_count", "comm" },
        { MPI_Graph_neighbors_count(graph, 1, &i1), MPI_ERR_RANK, "MPI_Graph_neighbors_count", "rank" },
        { MPI_Graph_neighbors(graph, -1, 4, nb), MPI_ERR_RANK, "MPI_Graph_neighbors", "rank" },
        { MPI_Graph_neighbors(dist, 0, 4, nb), MPI_ERR_TOPOLOGY, "MPI_Graph_neighbors", "comm" },
        { MPI_Graphdims_get(cart, &i1, &i2), MPI_ERR_TOPOLOGY, "MPI_Graphdims_get", "comm" },
        { MPI_Dist_graph_neighbors_count(cart, &i1, &i2, &w), MPI_ERR_TOPOLOGY, "MPI_Dist_graph_neighbors_count",
          "comm" },
        { MPI_Dist_graph_neighbors_count(dist, NULL, &i2, &w), MPI_ERR_ARG, "MPI_Dist_graph_neighbors_count",
          "indegree" },
        { MPI_Dist_graph_neighbors(graph, 1, nb, MPI_UNWEIGHTED, 1, nb + 1, MPI_UNWEIGHTED), MPI_ERR_TOPOLOGY,
          "MPI_Dist_graph_neighbors", "comm" },
        { MPI_Topo_test(MPI_COMM_NULL, &i1), MPI_ERR_COMM, "MPI_Topo_test", "comm" },
        { MPI_Topo_test(cart, NULL), MPI_ERR_ARG, "MPI_Topo_test", "status" },
    };
    conf_expect_all(b, CONF_N(b));

    MPI_OK(MPI_Cart_shift(cart, 0, 1, &i1, &i2));
    CONF_TRUE(i1 == (rank ? rank - 1 : MPI_PROC_NULL) && i2 == (rank < size - 1 ? rank + 1 : MPI_PROC_NULL),
          "Cart_shift(dim 0, +1) on %d: %d %d", rank, i1, i2);
    MPI_OK(MPI_Cart_shift(cart, 1, 3, &i1, &i2));                  /* periodic, extent 1: oneself */
    CONF_TRUE(i1 == rank && i2 == rank, "Cart_shift(periodic dim of 1) %d %d", i1, i2);
    MPI_OK(MPI_Cart_shift(cart, 0, size, &i1, &i2));               /* past both edges */
    CONF_TRUE(i1 == MPI_PROC_NULL && i2 == MPI_PROC_NULL, "Cart_shift by %d: %d %d", size, i1, i2);
    MPI_OK(MPI_Cart_sub(cart, remain, &sub));
    MPI_OK(MPI_Comm_size(sub, &i1));
    MPI_OK(MPI_Cartdim_get(sub, &i2));
    CONF_TRUE(i1 == size && i2 == 1, "Cart_sub: size %d dims %d", i1, i2);
    MPI_OK(MPI_Comm_free(&sub));
    MPI_OK(MPI_Dist_graph_neighbors_count(dist, &i1, &i2, &w));
    CONF_TRUE(i1 == 1 && i2 == 1 && !w, "Dist_graph_neighbors_count %d %d weighted %d", i1, i2, w);
    MPI_OK(MPI_Dist_graph_neighbors(dist, 1, nb, MPI_UNWEIGHTED, 1, nb + 1, MPI_UNWEIGHTED));
    CONF_TRUE(nb[0] == src && nb[1] == dst, "Dist_graph_neighbors %d %d, expected %d %d", nb[0], nb[1], src, dst);
    MPI_OK(MPI_Graph_neighbors_count(graph, 0, &i1));
    MPI_OK(MPI_Graph_neighbors(graph, 0, 4, nb));
    CONF_TRUE(i1 == 1 && nb[0] == 0, "Graph_neighbors of the self-loop: %d, %d", i1, nb[0]);
    MPI_OK(MPI_Comm_free(&cart));
    MPI_OK(MPI_Comm_free(&graph));
    MPI_OK(MPI_Comm_free(&dist));
}

/* MPI 4.1 6.9.2: each predefined operation applies to its datatype classes
 * only (MPI_LAND not to floating point, MPI_BAND not to floating point,
 * MPI_MAXLOC only to the pair types, MPI_SUM not to the pair types):
 * anything else is MPI_ERR_OP, as are MPI_OP_NULL and freeing a predefined
 * operation (6.9.5). Groups (7.3): a rank outside the group is
 * MPI_ERR_RANK. Topology constructors (8.5): a grid larger than the
 * communicator (erroneous, no class named) MPI_ERR_TOPOLOGY, Dims_create whose fixed dimensions do not
 * divide nnodes MPI_ERR_DIMS, Cart_coords of a rank outside MPI_ERR_RANK. */
static void ops_groups_topology(void)
{
    float f[2] = { 1, 2 }, fo[2];
    double d[2] = { 1, 2 }, dout[2];
    int ia[4] = { 1, 2, 3, 4 }, io[4];
    MPI_Op op = MPI_SUM, uop = MPI_OP_NULL;
    MPI_Group g, ng;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    int bad_rank[1] = { size }, neg[1] = { -1 }, tr[1];
    int range[1][3] = { { 0, size, 1 } };
    int dims[2] = { size + 1, 1 }, periods[2] = { 0, 0 }, fixed[2] = { 0, 0 };
    MPI_Comm cart;
    int nd = size > 1 ? size + 1 : 3;          /* fixed dimension 2 does not divide an odd nnodes */
    int dd[2] = { 2, 0 };
    (void)fixed;
    const struct conf_bad b[] = {
        { MPI_Reduce_local(f, fo, 2, MPI_FLOAT, MPI_LAND), MPI_ERR_OP, "MPI_Reduce_local", "op" },
        { MPI_Reduce_local(d, dout, 2, MPI_DOUBLE, MPI_BAND), MPI_ERR_OP, "MPI_Reduce_local", "op" },
        { MPI_Reduce_local(ia, io, 2, MPI_INT, MPI_MAXLOC), MPI_ERR_OP, "MPI_Reduce_local", "op" },
        { MPI_Reduce_local(ia, io, 2, MPI_2INT, MPI_SUM), MPI_ERR_OP, "MPI_Reduce_local", "op" },
        { MPI_Reduce_local(ia, io, 2, MPI_INT, MPI_OP_NULL), MPI_ERR_OP, "MPI_Reduce_local", "op" },
        { MPI_Op_free(&op), MPI_ERR_OP, "MPI_Op_free", "op" },
        { MPI_Op_free(&uop), MPI_ERR_OP, "MPI_Op_free", "op" },
        { MPI_Op_commutative(MPI_OP_NULL, &i1), MPI_ERR_OP, "MPI_Op_commutative", "op" },
        { MPI_Op_commutative(MPI_SUM, NULL), MPI_ERR_ARG, "MPI_Op_commutative", "commute" },
        { MPI_Op_create(NULL, 1, &uop), MPI_ERR_ARG, "MPI_Op_create", "user_fn" },
        { MPI_Group_incl(g, 1, bad_rank, &ng), MPI_ERR_RANK, "MPI_Group_incl", "ranks" },
        { MPI_Group_excl(g, 1, neg, &ng), MPI_ERR_RANK, "MPI_Group_excl", "ranks" },
        { MPI_Group_translate_ranks(g, 1, bad_rank, g, tr), MPI_ERR_RANK, "MPI_Group_translate_ranks", "ranks1" },
        { MPI_Group_range_incl(g, 1, range, &ng), MPI_ERR_RANK, "MPI_Group_range_incl", "ranges" },
        { MPI_Group_incl(MPI_GROUP_NULL, 0, NULL, &ng), MPI_ERR_GROUP, "MPI_Group_incl", "group" },
        { MPI_Group_size(MPI_GROUP_NULL, &i1), MPI_ERR_GROUP, "MPI_Group_size", "group" },
        { MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart), MPI_ERR_TOPOLOGY, "MPI_Cart_create",
          "dims" },
        { MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &cart), MPI_ERR_DIMS, "MPI_Cart_create", "ndims" },
        { MPI_Dims_create(nd, 2, dd), MPI_ERR_DIMS, "MPI_Dims_create", "dims" },
        { MPI_Dims_create(4, -1, dd), MPI_ERR_DIMS, "MPI_Dims_create", "ndims" },
    };
    conf_expect_all(b, CONF_N(b));
    MPI_OK(MPI_Group_free(&g));
    CONF_TRUE(op == MPI_SUM, "a refused Op_free changed the handle");
}

/* MPI 4.1 5.1 datatype constructors and 5.2 pack: MPI_ORDER_* and
 * MPI_DISTRIBUTE_* outside their values and a subarray outside its array
 * are MPI_ERR_ARG, a negative count MPI_ERR_COUNT, an uncommitted type in
 * communication or packing MPI_ERR_TYPE, a pack buffer too small
 * MPI_ERR_TRUNCATE (5.2.1: "outsize ... the call is erroneous" otherwise).
 * Communicators (7.4, 7.6): Comm_remote_size of an intracommunicator
 * and an unknown split_type are errors of their arguments. */
static void constructors_and_comms(void)
{
    int sizes[2] = { 4, 4 }, sub[2] = { 2, 2 }, starts[2] = { 3, 0 }, ok_starts[2] = { 0, 0 };
    int gs[1] = { 8 }, distrib[1] = { 77 }, dargs[1] = { MPI_DISTRIBUTE_DFLT_DARG }, psizes[1] = { 1 };
    int bls[2] = { 1, 1 }, idx[2] = { 0, 2 };
    MPI_Datatype t, uncommitted;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
    char packbuf[4];
    int pos = 0, vals[4] = { 0 };
    const struct conf_bad b[] = {
        { MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG,
          "MPI_Type_create_subarray", "array_of_starts" },
        { MPI_Type_create_subarray(2, sizes, sub, ok_starts, 12345, MPI_INT, &t), MPI_ERR_ARG,
          "MPI_Type_create_subarray", "order" },
        { MPI_Type_create_darray(1, 0, 1, gs, distrib, dargs, psizes, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG,
          "MPI_Type_create_darray", "array_of_distribs" },
        { MPI_Type_create_indexed_block(-1, 1, idx, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_create_indexed_block",
          "count" },
        { MPI_Type_indexed(2, bls, NULL, MPI_INT, &t), MPI_ERR_ARG, "MPI_Type_indexed", "array_of_displacements" },
        { MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &t), MPI_ERR_TYPE, "MPI_Type_create_resized",
          "oldtype" },
        { MPI_Type_commit(NULL), MPI_ERR_ARG, "MPI_Type_commit", "datatype" },
        { MPI_Pack(vals, 1, uncommitted, packbuf, sizeof packbuf, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Pack",
          "datatype" },
        { MPI_Pack(vals, 4, MPI_INT, packbuf, sizeof packbuf, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE, "MPI_Pack",
          "outsize" },
        { MPI_Pack_size(-1, MPI_INT, MPI_COMM_WORLD, &i1), MPI_ERR_COUNT, "MPI_Pack_size", "incount" },
        { MPI_Send(vals, 1, uncommitted, MPI_PROC_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send", "datatype" },
        { MPI_Comm_remote_size(MPI_COMM_WORLD, &i1), MPI_ERR_COMM, "MPI_Comm_remote_size", "comm" },
        { MPI_Comm_split_type(MPI_COMM_WORLD, 4242, 0, MPI_INFO_NULL, &newc), MPI_ERR_ARG, "MPI_Comm_split_type",
          "split_type" },
        { MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &newc), MPI_ERR_ARG, "MPI_Comm_split", "color" },
    };
    conf_expect_all(b, CONF_N(b));
    MPI_OK(MPI_Type_free(&uncommitted));
}

/* MPI 4.1 6.13 persistent collectives and 3.9 Start: the init calls check
 * as their blocking forms do (a root outside the group MPI_ERR_ROOT,
 * MPI_OP_NULL MPI_ERR_OP, a negative count MPI_ERR_COUNT, an invalid info
 * MPI_ERR_INFO, a neighbourhood call without a topology
 * MPI_ERR_TOPOLOGY), and MPI_Start of a non-request MPI_ERR_REQUEST. */
static void persistent(void)
{
    int x[4] = { 0 }, y[4 * 64] = { 0 };
    MPI_Info freed, stale;
    MPI_OK(MPI_Info_create(&freed));
    stale = freed;
    MPI_OK(MPI_Info_free(&freed));
    MPI_Request none = MPI_REQUEST_NULL;
    const struct conf_bad b[] = {
        { MPI_Bcast_init(x, 1, MPI_INT, size, MPI_COMM_WORLD, MPI_INFO_NULL, &req), MPI_ERR_ROOT, "MPI_Bcast_init",
          "root" },
        { MPI_Allreduce_init(x, y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, MPI_INFO_NULL, &req), MPI_ERR_OP,
          "MPI_Allreduce_init", "op" },
        { MPI_Reduce_init(x, y, -1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req), MPI_ERR_COUNT,
          "MPI_Reduce_init", "count" },
        { MPI_Gather_init(x, 1, MPI_INT, y, 1, MPI_INT, 0, MPI_COMM_WORLD, stale, &req), MPI_ERR_INFO,
          "MPI_Gather_init", "info" },
        { MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, NULL), MPI_ERR_ARG, "MPI_Barrier_init", "request" },
        { MPI_Scan_init(x, y, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req), MPI_ERR_TYPE,
          "MPI_Scan_init", "datatype" },
        { MPI_Neighbor_allgather_init(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
          MPI_ERR_TOPOLOGY, "MPI_Neighbor_allgather_init", "comm" },
        { MPI_Alltoall_init(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_NULL, MPI_INFO_NULL, &req), MPI_ERR_COMM,
          "MPI_Alltoall_init", "comm" },
        { MPI_Start(&none), MPI_ERR_REQUEST, "MPI_Start", "request" },
        { MPI_Start(NULL), MPI_ERR_ARG, "MPI_Start", "request" },
        { MPI_Startall(1, NULL), MPI_ERR_ARG, "MPI_Startall", "array_of_requests" },
        { MPI_Startall(-1, &none), MPI_ERR_COUNT, "MPI_Startall", "count" },
    };
    conf_expect_all(b, CONF_N(b));
}

/* MPI 4.1 3.6.1 (the buffer calls), 9.1.1 (library version), 11.3
 * (sessions): argument errors. */
static void buffers_and_misc(void)
{
    static char buf[4096];
    MPI_Session s;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    void *p;
    const struct conf_bad b[] = {
        { MPI_Comm_attach_buffer(MPI_COMM_NULL, buf, sizeof buf), MPI_ERR_COMM, "MPI_Comm_attach_buffer", "comm" },
        { MPI_Comm_attach_buffer(MPI_COMM_WORLD, buf, -1), MPI_ERR_ARG, "MPI_Comm_attach_buffer", "size" },
        { MPI_Comm_detach_buffer(MPI_COMM_NULL, &p, &i1), MPI_ERR_COMM, "MPI_Comm_detach_buffer", "comm" },
        { MPI_Comm_flush_buffer(MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Comm_flush_buffer", "comm" },
        { MPI_Session_attach_buffer(MPI_SESSION_NULL, buf, sizeof buf), MPI_ERR_SESSION,
          "MPI_Session_attach_buffer", "session" },
        { MPI_Session_attach_buffer(s, buf, -5), MPI_ERR_ARG, "MPI_Session_attach_buffer", "size" },
        { MPI_Buffer_attach(buf, -1), MPI_ERR_ARG, "MPI_Buffer_attach", "size" },
        { MPI_Get_library_version(NULL, &i1), MPI_ERR_ARG, "MPI_Get_library_version", "version" },
        { MPI_Get_library_version(str, NULL), MPI_ERR_ARG, "MPI_Get_library_version", "resultlen" },
        { MPI_Get_version(NULL, &i1), MPI_ERR_ARG, "MPI_Get_version", "version" },
        { MPI_Session_get_info(MPI_SESSION_NULL, &inf), MPI_ERR_SESSION, "MPI_Session_get_info", "session" },
        { MPI_Session_get_info(s, NULL), MPI_ERR_ARG, "MPI_Session_get_info", "info_used" },
        { MPI_Session_get_num_psets(s, MPI_INFO_NULL, NULL), MPI_ERR_ARG, "MPI_Session_get_num_psets",
          "npset_names" },
        { MPI_Group_from_session_pset(s, NULL, &grp), MPI_ERR_ARG, "MPI_Group_from_session_pset", "pset_name" },
    };
    conf_expect_all(b, CONF_N(b));
    /* MPI 4.1 9.1.1: resultlen is the length without the NUL, at most
     * MPI_MAX_LIBRARY_VERSION_STRING - 1. */
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_OK(MPI_Get_library_version(ver, &i1));
    CONF_TRUE(i1 == (int)strlen(ver) && i1 > 0 && i1 < MPI_MAX_LIBRARY_VERSION_STRING, "library version length %d", i1);
    MPI_OK(MPI_Get_version(&i1, &i2));
    CONF_TRUE(i1 == MPI_VERSION && i2 == MPI_SUBVERSION, "Get_version %d.%d", i1, i2);
    MPI_OK(MPI_Session_finalize(&s));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &rank, &size);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    types_and_status();
    info_calls();
    topology();
    ops_groups_topology();
    constructors_and_comms();
    persistent();
    buffers_and_misc();
    int total;
    MPI_OK(MPI_Reduce(&conf_checks, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Finalize());
    if (rank == 0)
        printf("test_conf_argcheck: OK (%d checks on rank 0, %d in all)\n", conf_checks, total);
    return 0;
}
