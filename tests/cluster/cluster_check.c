/*
 * One MPI job across several hosts (tests/cluster/cluster.sh: network
 * namespaces, each with its own address, hostname and /dev/shm, launched by
 * MPICH's Hydra). Checks that the job sees the real layout and uses the
 * right channel for every pair, then moves data between every pair and
 * through collectives:
 *
 *   1. layout (before any communication): rdmach_node/node_of/num_nodes and
 *      local rank/size agree with each other; printed per rank;
 *   2. channel per peer (before any communication): the device's channel to
 *      a peer on my node is shared memory, to a peer on another node a
 *      network channel — never "none"; printed with what src/rdma/select.c
 *      says and why;
 *   3. published network addresses (KVS "rdmach-net"): mine is an address
 *      of one of my interfaces, not loopback; ranks on my node publish my
 *      address, ranks on other nodes another one;
 *   4. hostnames (gethostname, one per UTS namespace) exchanged: same node
 *      exactly when same hostname; the placement given as argument holds;
 *   5. MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups exactly the ranks of
 *      my host;
 *   6. every ordered pair exchanges messages from 0 B to 8 MiB (eager and
 *      rendezvous), data checked; Allreduce, Bcast from every root,
 *      Alltoall, Barrier checked;
 *   7. for each peer on another node reached by the libfabric channel: the
 *      TCP connection of this process that carries it (from /proc/self/fd
 *      and /proc/self/net/tcp): the higher rank connected to the lower
 *      rank's published address, exactly one connection per pair and data
 *      rail (RDMACH_NET_RAILS, 2 over tcp), between the two hosts' addresses;
 *   8. rank 0 prints the channel matrix and the hosts.
 *
 * Usage: cluster_check [host-of-rank-0,host-of-rank-1,...]
 * The list (e.g. h1,h2,h1,h2) is where the launcher must have put each rank.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdlib.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include "rdmach.h"
#include "device/dev_impl.h"
#include "rdma/net/net_proto.h"
#include "rdma/select.h"
/* exit(1), not MPI_Abort: Hydra then forwards the failure message far more
 * reliably (the cluster_check_detects_* tests match it; see mpi_test.h) */
#define MT_FAIL() exit(1)
#include "../mpi/mpi_test.h"

#define HOST_MAX 64
#define CHAN_MAX 16
#define MAXP 64

static int size;
static char myhost[HOST_MAX];

/* One line to stdout in one write, prefixed with the rank and host. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[1024];
    int n = snprintf(line, sizeof(line), "cluster_check: rank %d on %s: ", mt_rank, myhost);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    strcat(line, "\n");
    fputs(line, stdout);
    fflush(stdout);
}

/* ---- 1. layout ---- */

static void check_layout(void)
{
    int nodes = rdmach_num_nodes(), me = rdmach_node();
    CHECK(nodes >= 1 && nodes <= size, "rdmach_num_nodes() = %d with %d ranks", nodes, size);
    CHECK(me == rdmach_node_of(mt_rank), "rdmach_node() %d != rdmach_node_of(%d) %d", me, mt_rank,
          rdmach_node_of(mt_rank));
    char map[MAXP * 4] = "";
    int local = 0, below = 0, seen[MAXP] = { 0 };
    for (int r = 0; r < size; r++) {
        int n = rdmach_node_of(r);
        CHECK(n >= 0 && n < nodes, "rdmach_node_of(%d) = %d, outside 0..%d", r, n, nodes - 1);
        seen[n] = 1;
        local += n == me;
        below += n == me && r < mt_rank;
        snprintf(map + strlen(map), sizeof(map) - strlen(map), "%s%d", r ? "," : "", n);
    }
    for (int n = 0; n < nodes; n++)
        CHECK(seen[n], "node %d of %d has no rank (node_of = %s)", n, nodes, map);
    CHECK(rdmach_local_size() == local, "rdmach_local_size() %d, but %d ranks have node %d", rdmach_local_size(),
          local, me);
    CHECK(rdmach_local_rank() == below, "rdmach_local_rank() %d, expected %d", rdmach_local_rank(), below);
    say("node %d of %d, local rank %d of %d, node_of = [%s]", me, nodes, rdmach_local_rank(), local, map);
}

/* ---- 2. channel per peer ---- */

static const char *chan_of(int peer)
{
    return rch_dev.peers[peer].ops ? rch_dev.peers[peer].ops->name : "?";
}

static int is_net(const char *name)
{
    return strcmp(name, "ofi") == 0 || strcmp(name, "verbs") == 0;
}

static void check_channels(void)
{
    for (int q = 0; q < size; q++) {
        if (q == mt_rank)
            continue;
        char why[400];
        const struct rch_rdma_ops *sel = rch_rdma_select(&rch_boot, q, why, sizeof(why));
        const char *dev = chan_of(q);
        int same = rdmach_node_of(q) == rdmach_node();
        say("peer %d (node %d): device channel %s; src/rdma/select.c: %s (%s)", q, rdmach_node_of(q), dev,
            sel ? sel->name : "none", why);
        if (same)
            CHECK(strcmp(dev, "shm") == 0, "rank %d -> rank %d (same node %d): channel '%s', expected shared memory",
                  mt_rank, q, rdmach_node(), dev);
        else
            CHECK(is_net(dev), "rank %d -> rank %d (node %d, another host): the device's channel is '%s', not a "
                  "network channel, so this pair cannot communicate; src/rdma/select.c would choose %s (%s)",
                  mt_rank, q, rdmach_node_of(q), dev, sel ? sel->name : "none", why);
    }
}

/* ---- 3. published addresses ---- */

struct pub {
    int have;
    char prov[16];
    struct sockaddr_in sin;
};
static struct pub pubs[MAXP];

static const char *ipstr(const struct sockaddr_in *s, char *buf)
{
    char ip[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &s->sin_addr, ip, sizeof(ip));
    sprintf(buf, "%s:%u", ip, (unsigned)ntohs(s->sin_port));
    return buf;
}

static int my_interface_has(struct in_addr a)
{
    struct ifaddrs *ifs = NULL;
    int found = 0;
    CHECK(getifaddrs(&ifs) == 0, "getifaddrs failed");
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
            ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == a.s_addr)
            found = 1;
    freeifaddrs(ifs);
    return found;
}

static void read_published(void)
{
    int any_net = 0;
    for (int q = 0; q < size; q++)
        any_net |= q != mt_rank && is_net(chan_of(q));
    for (int r = 0; r < size; r++) {
        char hex[2 * sizeof(struct rch_net_kvs_rec) + 8];
        struct rch_net_kvs_rec rec;
        rdmach_status_t st = rdmach_kvs_get(r, RCH_NET_KVS_KEY, hex, sizeof(hex));
        if (st == RDMACH_ERR_NOT_FOUND)
            continue;   /* that rank opened no network channel (all its peers share its node) */
        CHECK(st == RDMACH_OK, "kvs get of rank %d's %s: %s", r, RCH_NET_KVS_KEY, rdmach_last_error());
        CHECK(rch_boot_hex_decode(hex, &rec, sizeof(rec)) == RDMACH_OK, "rank %d's %s record is not %zu hex bytes",
              r, RCH_NET_KVS_KEY, sizeof(rec));
        CHECK(rec.magic == RCH_NET_MAGIC && rec.version == RCH_NET_VERSION, "rank %d's record: magic %#x version %u",
              r, rec.magic, rec.version);
        const struct sockaddr *sa = (const struct sockaddr *)rec.addr;
        CHECK(rec.addrlen >= sizeof(struct sockaddr_in) && sa->sa_family == AF_INET,
              "rank %d publishes a %s address of family %d and %u bytes; this test checks IPv4 listeners only "
              "(the cluster's hosts have one IPv4 address each)", r, rec.prov, sa->sa_family, rec.addrlen);
        pubs[r].have = 1;
        snprintf(pubs[r].prov, sizeof(pubs[r].prov), "%.15s", rec.prov);
        memcpy(&pubs[r].sin, rec.addr, sizeof(pubs[r].sin));
    }
    if (!any_net)
        return;
    char b1[64], b2[64];
    struct pub *me = &pubs[mt_rank];
    CHECK(me->have, "I have peers on other nodes but published no network address");
    CHECK((ntohl(me->sin.sin_addr.s_addr) >> 24) != 127,
          "my network channel listens on the loopback address %s: no other host can reach it", ipstr(&me->sin, b1));
    CHECK(me->sin.sin_addr.s_addr != htonl(INADDR_ANY), "my network channel published the wildcard address %s",
          ipstr(&me->sin, b1));
    CHECK(my_interface_has(me->sin.sin_addr), "my published address %s is not an address of my interfaces",
          ipstr(&me->sin, b1));
    say("network channel %s listens on %s", me->prov, ipstr(&me->sin, b1));
    for (int r = 0; r < size; r++) {
        if (!pubs[r].have || r == mt_rank)
            continue;
        int same_ip = pubs[r].sin.sin_addr.s_addr == me->sin.sin_addr.s_addr;
        int same_node = rdmach_node_of(r) == rdmach_node();
        CHECK(same_ip == same_node, "rank %d (node %d) publishes %s, I (node %d) %s: same address %s same node",
              r, rdmach_node_of(r), ipstr(&pubs[r].sin, b1), rdmach_node(), ipstr(&me->sin, b2),
              same_ip ? "but not" : "and");
    }
}

/* ---- 4, 5. hosts and MPI_COMM_TYPE_SHARED ---- */

static char (*hosts)[HOST_MAX];

static void check_hosts(const char *expect)
{
    hosts = calloc((size_t)size, HOST_MAX);
    CHECK(hosts, "out of memory");
    MPI_OK(MPI_Allgather(myhost, HOST_MAX, MPI_CHAR, hosts, HOST_MAX, MPI_CHAR, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        for (int q = 0; q < size; q++) {
            int same_host = strcmp(hosts[r], hosts[q]) == 0, same_node = rdmach_node_of(r) == rdmach_node_of(q);
            CHECK(same_host == same_node, "ranks %d (host %s, node %d) and %d (host %s, node %d): same host %s same node",
                  r, hosts[r], rdmach_node_of(r), q, hosts[q], rdmach_node_of(q), same_host ? "but not" : "and");
        }
    if (expect) {
        char *copy = strdup(expect), *save = NULL, *tok = strtok_r(copy, ",", &save);
        int r = 0;
        for (; tok; tok = strtok_r(NULL, ",", &save), r++) {
            CHECK(r < size, "the expected placement '%s' names more than %d ranks", expect, size);
            CHECK(strcmp(tok, hosts[r]) == 0, "rank %d runs on host '%s', expected '%s' (placement %s)", r, hosts[r],
                  tok, expect);
        }
        CHECK(r == size, "the expected placement '%s' names %d ranks, the job has %d", expect, r, size);
        free(copy);
    }

    MPI_Comm shm;
    int ssize, *members = malloc(sizeof(int) * (size_t)size), n = 0;
    CHECK(members, "out of memory");
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm));
    MPI_OK(MPI_Comm_size(shm, &ssize));
    MPI_OK(MPI_Allgather(&mt_rank, 1, MPI_INT, members, 1, MPI_INT, shm));
    for (int r = 0; r < size; r++) {
        if (strcmp(hosts[r], myhost) != 0)
            continue;
        CHECK(n < ssize && members[n] == r, "MPI_COMM_TYPE_SHARED: member %d is rank %d, expected rank %d of host %s",
              n, n < ssize ? members[n] : -1, r, myhost);
        n++;
    }
    CHECK(n == ssize, "MPI_COMM_TYPE_SHARED has %d ranks, host %s has %d", ssize, myhost, n);
    say("MPI_COMM_TYPE_SHARED: %d rank(s), the ranks of host %s", ssize, myhost);
    free(members);
    MPI_OK(MPI_Comm_free(&shm));
}

/* ---- 6. traffic ---- */

static void check_pairs(void)
{
    static const size_t sizes[] = { 0, 8, 1000, 16384, 65536, (1u << 20) + 13, 8u << 20 };
    const int nsizes = (int)(sizeof(sizes) / sizeof(sizes[0]));
    size_t max = sizes[nsizes - 1];
    unsigned char *out = malloc(max), *in = malloc(max + 64);
    CHECK(out && in, "out of memory");
    for (int step = 1; step < size; step++) {
        int to = (mt_rank + step) % size, from = (mt_rank - step + size) % size;
        for (int k = 0; k < nsizes; k++) {
            uint64_t id_out = (uint64_t)mt_rank * 1000003u + (uint64_t)to * 1009u + (uint64_t)k;
            uint64_t id_in = (uint64_t)from * 1000003u + (uint64_t)mt_rank * 1009u + (uint64_t)k;
            mt_fill(out, sizes[k], id_out);
            memset(in, 0xee, sizes[k] + 64);
            MPI_Status st;
            int count;
            MPI_OK(MPI_Sendrecv(out, (int)sizes[k], MPI_BYTE, to, 100 + k, in, (int)sizes[k] + 64, MPI_BYTE, from,
                                100 + k, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
            CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 100 + k && (size_t)count == sizes[k],
                  "from rank %d: source %d tag %d count %d, expected %zu bytes", from, st.MPI_SOURCE, st.MPI_TAG,
                  count, sizes[k]);
            long bad = mt_verify(in, sizes[k], id_in);
            CHECK(bad < 0, "%zu bytes from rank %d (%s, channel %s): byte %ld is wrong", sizes[k], from, hosts[from],
                  chan_of(from), bad);
            for (size_t i = sizes[k]; i < sizes[k] + 64; i++)
                CHECK(in[i] == 0xee, "%zu bytes from rank %d: byte %zu after the message was overwritten", sizes[k],
                      from, i);
        }
    }
    free(out);
    free(in);
    say("every pair exchanged 0 B .. 8 MiB in both directions; data checked");
}

static void check_collectives(void)
{
    long sum = 0, want = (long)size * (size - 1) / 2, mine = mt_rank;
    MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == want, "MPI_Allreduce sum of ranks %ld, expected %ld", sum, want);

    enum { BC = 100000 };
    unsigned char *b = malloc(BC);
    CHECK(b, "out of memory");
    for (int root = 0; root < size; root++) {
        if (mt_rank == root)
            mt_fill(b, BC, 7000u + (uint64_t)root);
        else
            memset(b, 0, BC);
        MPI_OK(MPI_Bcast(b, BC, MPI_BYTE, root, MPI_COMM_WORLD));
        long bad = mt_verify(b, BC, 7000u + (uint64_t)root);
        CHECK(bad < 0, "MPI_Bcast from rank %d: byte %ld is wrong", root, bad);
    }
    free(b);

    enum { AA = 1024 };
    int *sbuf = malloc(sizeof(int) * AA * (size_t)size), *rbuf = malloc(sizeof(int) * AA * (size_t)size);
    CHECK(sbuf && rbuf, "out of memory");
    for (int q = 0; q < size; q++)
        for (int i = 0; i < AA; i++)
            sbuf[q * AA + i] = mt_rank * 1000000 + q * 10000 + i;
    MPI_OK(MPI_Alltoall(sbuf, AA, MPI_INT, rbuf, AA, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < size; q++)
        for (int i = 0; i < AA; i++)
            CHECK(rbuf[q * AA + i] == q * 1000000 + mt_rank * 10000 + i, "MPI_Alltoall: element %d from rank %d is %d",
                  i, q, rbuf[q * AA + i]);
    free(sbuf);
    free(rbuf);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    say("Allreduce, Bcast from every root, Alltoall, Barrier: results checked");
}

/* ---- 7. the TCP connection of every network pair ---- */

struct tcp_sock { uint32_t lip, rip; unsigned lport, rport; };

/* My own ESTABLISHED IPv4 TCP sockets: /proc/self/fd inodes matched
 * against /proc/self/net/tcp (this network namespace's table). */
static int my_tcp_sockets(struct tcp_sock *out, int max)
{
    unsigned long inodes[1024];
    int ni = 0, n = 0;
    DIR *d = opendir("/proc/self/fd");
    CHECK(d, "cannot open /proc/self/fd");
    for (struct dirent *e; (e = readdir(d)) != NULL && ni < 1024;) {
        char path[300], link[64];
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        ssize_t l = readlink(path, link, sizeof(link) - 1);
        if (l <= 0)
            continue;
        link[l] = '\0';
        unsigned long ino;
        if (sscanf(link, "socket:[%lu]", &ino) == 1)
            inodes[ni++] = ino;
    }
    closedir(d);
    FILE *f = fopen("/proc/self/net/tcp", "r");
    CHECK(f, "cannot open /proc/self/net/tcp");
    char line[512];
    if (fgets(line, sizeof(line), f) == NULL)
        line[0] = '\0';   /* header */
    while (fgets(line, sizeof(line), f) && n < max) {
        unsigned lip, lport, rip, rport, state;
        unsigned long ino;
        if (sscanf(line, " %*d: %x:%x %x:%x %x %*x:%*x %*x:%*x %*x %*u %*u %lu", &lip, &lport, &rip, &rport, &state,
                   &ino) != 6 || state != 1 /* TCP_ESTABLISHED */)
            continue;
        for (int i = 0; i < ni; i++)
            if (inodes[i] == ino) {
                out[n++] = (struct tcp_sock){ lip, rip, lport, rport };
                break;
            }
    }
    fclose(f);
    return n;
}

/* Connections per pair: the connection and its data rails (net_conn.c):
 * RDMACH_NET_RAILS, or the tcp provider's default of 2 (ofi_prov.c,
 * caps.rails: a byte stream with read-after-write order). */
static int rails_per_pair(void)
{
    const char *e = getenv("RDMACH_NET_RAILS");
    int n = e && *e ? atoi(e) : 0;
    return n > 0 ? n : 2;
}

static void check_tcp(void)
{
    const int rails = rails_per_pair();
    struct tcp_sock s[256];
    const struct sockaddr_in *me = &pubs[mt_rank].sin;
    int n = my_tcp_sockets(s, 256), checked = 0;
    char b1[64], b2[64];
    for (int q = 0; q < size; q++) {
        if (q == mt_rank || strcmp(chan_of(q), "ofi") != 0)
            continue;
        CHECK(pubs[q].have, "rank %d is reached by ofi but published no address", q);
        const struct sockaddr_in *peer = &pubs[q].sin;
        int found = 0;
        const struct tcp_sock *hit = NULL;
        for (int i = 0; i < n; i++) {
            /* the higher rank is the client: it connected to the lower rank's listener */
            int match = q < mt_rank
                ? s[i].rip == peer->sin_addr.s_addr && s[i].rport == ntohs(peer->sin_port) &&
                  s[i].lip == me->sin_addr.s_addr
                : s[i].lport == ntohs(me->sin_port) && s[i].lip == me->sin_addr.s_addr &&
                  s[i].rip == peer->sin_addr.s_addr;
            if (match) {
                found++;
                hit = &s[i];
            }
        }
        if (q < mt_rank) {
            CHECK(found == rails, "rank %d -> rank %d: %d TCP connections from %s to its listener %s, expected "
                  "exactly %d (the connection and its data rails)", mt_rank, q, found,
                  inet_ntop(AF_INET, &me->sin_addr, b1, sizeof(b1)), ipstr(peer, b2), rails);
            struct sockaddr_in l = { .sin_family = AF_INET, .sin_addr.s_addr = hit->lip, .sin_port = htons((uint16_t)hit->lport) };
            say("pair %d-%d: ofi over TCP %s -> %s (I connected to rank %d's listener)", q, mt_rank, ipstr(&l, b1),
                ipstr(peer, b2), q);
        } else {
            /* several ranks of one host connect to me from the same address:
             * count the higher ranks of that host and compare once per host */
            int expect = 0, first = 1;
            for (int r = mt_rank + 1; r < size; r++)
                if (strcmp(chan_of(r), "ofi") == 0 && pubs[r].have && pubs[r].sin.sin_addr.s_addr == peer->sin_addr.s_addr) {
                    expect += rails;
                    if (r < q)
                        first = 0;
                }
            if (first) {
                CHECK(found == expect, "rank %d: %d TCP connections accepted on %s from %s, expected %d (%d per "
                      "higher rank there)", mt_rank, found, ipstr(me, b1), inet_ntop(AF_INET, &peer->sin_addr, b2,
                      sizeof(b2)), expect, rails);
                say("ofi over TCP: %d connection(s) accepted on %s from host %s (%s), %d per higher rank there",
                    found, ipstr(me, b1), hosts[q], inet_ntop(AF_INET, &peer->sin_addr, b2, sizeof(b2)), rails);
            }
        }
        checked++;
    }
    if (checked)
        say("%d peer(s) over ofi: each has its TCP connection between the two hosts' addresses", checked);
}

/* ---- 8. summary ---- */

static void print_matrix(void)
{
    char *row = calloc(1, CHAN_MAX * MAXP), *all = NULL;
    CHECK(row, "out of memory");
    for (int q = 0; q < size; q++)
        snprintf(row + q * CHAN_MAX, CHAN_MAX, "%s", q == mt_rank ? "self" : chan_of(q));
    if (mt_rank == 0) {
        all = calloc((size_t)size, CHAN_MAX * MAXP);
        CHECK(all, "out of memory");
    }
    MPI_OK(MPI_Gather(row, CHAN_MAX * MAXP, MPI_CHAR, all, CHAN_MAX * MAXP, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (mt_rank == 0) {
        printf("cluster_check: %d ranks on %d nodes; channel of each pair (row: rank, column: peer):\n", size,
               rdmach_num_nodes());
        printf("      rank host      node");
        for (int q = 0; q < size; q++)
            printf(" %6d", q);
        printf("\n");
        for (int r = 0; r < size; r++) {
            printf("    %6d %-9s %4d", r, hosts[r], rdmach_node_of(r));
            for (int q = 0; q < size; q++)
                printf(" %6s", all + (size_t)r * CHAN_MAX * MAXP + (size_t)q * CHAN_MAX);
            printf("\n");
        }
        printf("cluster_check: PASS\n");
        fflush(stdout);
    }
    free(row);
    free(all);
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size <= MAXP, "at most %d ranks", MAXP);
    CHECK(gethostname(myhost, sizeof(myhost) - 1) == 0, "gethostname failed");

    check_layout();
    check_channels();
    read_published();
    check_hosts(argc > 1 ? argv[1] : NULL);
    check_pairs();
    check_collectives();
    check_tcp();
    print_matrix();
    free(hosts);
    MPI_OK(MPI_Finalize());
    return 0;
}
