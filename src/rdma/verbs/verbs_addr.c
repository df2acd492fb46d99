/*
 * verbs provider: which RDMA device and IP address this rank listens on.
 *
 * RDMA CM names a device by an IP address of its network interface, so the
 * choice is an address; a device is found from an address by binding a cm id
 * to it (rdma_bind_addr sets id->verbs to the device that owns the address).
 *
 *   RDMACH_VERBS_ADDR="a,b,..."    the listener binds address [node % n]
 *   RDMACH_VERBS_DEVICE="d,e,..."  the first address (IPv4 first) of this
 *                                  host that belongs to device [node % n]
 *   neither                        the first address of an interface that is
 *                                  up, not loopback, and belongs to an RDMA
 *                                  device with an active port
 * `node` is this rank's node id (rch_boot.node, which RDMACH_VNODE_SIZE makes
 * per pretend node), so ranks of different (virtual) nodes on one host can
 * use different devices: in the rdma guest, siw0 (192.0.2.1) for node 0 and
 * siw1 (192.0.2.2) for node 1 with RDMACH_VERBS_DEVICE=siw0,siw1. If both
 * are set, the address must belong to the device. The peer learns the
 * address (and the listener's port) from the KVS.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "rdma/verbs/verbs.h"

#if RDMACH_HAVE_VERBS

void rch_verbs_addr_text(const struct sockaddr *sa, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?";
    if (sa == NULL) {
        snprintf(buf, len, "?");
    } else if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
        snprintf(buf, len, "%s:%u", host, ntohs(s4->sin_port));
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
        inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
        snprintf(buf, len, "[%s]:%u", host, ntohs(s6->sin6_port));
    } else {
        snprintf(buf, len, "(address family %d)", sa->sa_family);
    }
}

static int node_index(void)
{
    return rch_boot_is_up() && rch_boot.node >= 0 ? rch_boot.node : 0;
}

rdmach_status_t rch_verbs_list_pick(const char *var, const char *list, int idx, char *out, size_t outlen)
{
    int count = 1;
    for (const char *p = list; *p; p++)
        count += *p == ',';
    int want = (idx < 0 ? 0 : idx) % count;
    const char *p = list;
    for (int i = 0; i < want; i++)
        p = strchr(p, ',') + 1;
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    while (n > 0 && (*p == ' ' || *p == '\t')) {
        p++;
        n--;
    }
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    if (n == 0 || n >= outlen)
        return rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_%s='%s': element %d (for node %d) is %s", var, list, want,
                            idx, n == 0 ? "empty" : "too long");
    memcpy(out, p, n);
    out[n] = '\0';
    return RDMACH_OK;
}

static int parse_ip(const char *text, struct sockaddr_storage *ss, socklen_t *len)
{
    memset(ss, 0, sizeof(*ss));
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, text, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        *len = sizeof(*s4);
        return 1;
    }
    if (inet_pton(AF_INET6, text, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        *len = sizeof(*s6);
        return 1;
    }
    return 0;
}

/* A port of the device is active? */
static int port_active(struct ibv_context *ctx, uint8_t port)
{
    struct ibv_port_attr pa;
    return ctx && ibv_query_port(ctx, port ? port : 1, &pa) == 0 && pa.state == IBV_PORT_ACTIVE;
}

/* Bind a throw-away id to sa: which device owns it (dev[0] = 0: none), is its port active. */
static int probe(struct rdma_event_channel *ec, const struct sockaddr *sa, char *dev, size_t devlen, int *active,
                 int *err)
{
    struct rdma_cm_id *id = NULL;
    dev[0] = '\0';
    *active = 0;
    *err = 0;
    if (rdma_create_id(ec, &id, NULL, RDMA_PS_TCP) != 0) {
        *err = errno;
        return 0;
    }
    int ok = 0;
    if (rdma_bind_addr(id, (struct sockaddr *)sa) != 0)
        *err = errno;
    else if (id->verbs == NULL)
        *err = ENODEV;
    else
        ok = 1;
    if (ok) {
        snprintf(dev, devlen, "%s", ibv_get_device_name(id->verbs->device));
        *active = port_active(id->verbs, id->port_num);
    }
    rdma_destroy_id(id);
    return ok;
}

static int usable_if(const struct ifaddrs *i, int family)
{
    if (i->ifa_addr == NULL || i->ifa_addr->sa_family != family)
        return 0;
    if (!(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
        return 0;
    if (family == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&((const struct sockaddr_in6 *)i->ifa_addr)->sin6_addr))
        return 0;   /* needs a scope id a peer cannot know */
    return 1;
}

/* The first interface address (IPv4 first) on device `want` (NULL: any device with an active port). */
static rdmach_status_t find_addr(struct rdma_event_channel *ec, const char *want, struct rch_verbs_where *w)
{
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) != 0)
        return rch_base_errno(errno, "verbs: getifaddrs");
    char seen[256] = "";
    int found = 0, inactive = 0;
    static const int families[] = { AF_INET, AF_INET6 };
    for (size_t f = 0; f < RCH_ARRAY_SIZE(families) && !found; f++) {
        for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
            if (!usable_if(i, families[f]))
                continue;
            char dev[64];
            int active, err;
            if (!probe(ec, i->ifa_addr, dev, sizeof(dev), &active, &err))
                continue;
            size_t n = strlen(seen);
            snprintf(seen + n, sizeof(seen) - n, "%s%s (%s%s)", n ? ", " : "", i->ifa_name, dev,
                     active ? "" : ", port not active");
            if (want && strcmp(dev, want) != 0)
                continue;
            if (!active) {
                inactive = 1;
                continue;
            }
            socklen_t len = families[f] == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
            memset(&w->addr, 0, sizeof(w->addr));
            memcpy(&w->addr, i->ifa_addr, len);
            ((struct sockaddr_in *)&w->addr)->sin_port = 0;   /* same offset in sockaddr_in6 */
            w->addrlen = len;
            snprintf(w->dev, sizeof(w->dev), "%s", dev);
            found = 1;
        }
    }
    freeifaddrs(ifs);
    if (found)
        return RDMACH_OK;
    if (want)
        return rch_base_err(RDMACH_ERR_CONFIG, "verbs: RDMACH_VERBS_DEVICE names %s, but %s (interfaces on RDMA "
                            "devices: %s): RDMA CM reaches a device through an IP address of its network interface",
                            want, inactive ? "its port is not active" : "no IP address of this host belongs to it",
                            seen[0] ? seen : "none");
    return rch_base_err(RDMACH_ERR_UNSUPPORTED, "verbs: no interface that is up has an IP address on an RDMA "
                        "device with an active port (%s)", seen[0] ? seen : "no interface belongs to an RDMA device");
}

rdmach_status_t rch_verbs_choose(struct rch_verbs_where *w)
{
    memset(w, 0, sizeof(*w));
    if (rch_verbs_dl_open() != RDMACH_OK)
        return RDMACH_ERR_UNSUPPORTED;
    int node = node_index();
    char want_dev[64] = "", text[64] = "";
    rdmach_status_t st = RDMACH_OK;
    /* the tunables first: a malformed value is named even where RDMA is absent */
    if (rch_tun.verbs_device[0])
        st = rch_verbs_list_pick("VERBS_DEVICE", rch_tun.verbs_device, node, want_dev, sizeof(want_dev));
    if (st == RDMACH_OK && rch_tun.verbs_addr[0]) {
        st = rch_verbs_list_pick("VERBS_ADDR", rch_tun.verbs_addr, node, text, sizeof(text));
        if (st == RDMACH_OK && !parse_ip(text, &w->addr, &w->addrlen))
            st = rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_VERBS_ADDR: '%s' (for node %d) is not an IPv4 or IPv6 "
                              "address", text, node);
    }
    if (st != RDMACH_OK)
        return st;
    struct rdma_event_channel *ec = rdma_create_event_channel();
    if (ec == NULL)
        return rch_verbs_err(errno, "rdma_create_event_channel (is rdma_ucm loaded, /dev/infiniband/rdma_cm present?)");
    if (text[0]) {
        int active = 0, err = 0;
        if (!probe(ec, (struct sockaddr *)&w->addr, w->dev, sizeof(w->dev), &active, &err))
            st = rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_VERBS_ADDR: %s (for node %d) belongs to no RDMA device of "
                              "this host (rdma_bind_addr: %s)", text, node, strerror(err));
        else if (!active)
            st = rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_VERBS_ADDR: %s belongs to %s, whose port is not active",
                              text, w->dev);
        else if (want_dev[0] && strcmp(want_dev, w->dev) != 0)
            st = rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_VERBS_ADDR=%s belongs to %s, but RDMACH_VERBS_DEVICE "
                              "names %s (for node %d)", text, w->dev, want_dev, node);
        if (st == RDMACH_OK)
            snprintf(w->why, sizeof(w->why), "RDMACH_VERBS_ADDR[%d]", node);
    } else {
        st = find_addr(ec, want_dev[0] ? want_dev : NULL, w);
        if (st == RDMACH_OK && want_dev[0])
            snprintf(w->why, sizeof(w->why), "RDMACH_VERBS_DEVICE[%d]", node);
        else if (st == RDMACH_OK)
            snprintf(w->why, sizeof(w->why), "the first active device");
    }
    rdma_destroy_event_channel(ec);
    if (st == RDMACH_OK)
        rch_verbs_addr_text((struct sockaddr *)&w->addr, w->addr_text, sizeof(w->addr_text));
    return st;
}

rdmach_status_t rch_verbs_any_active(void)
{
    int n = 0;
    if (rch_verbs_dl_open() != RDMACH_OK)
        return RDMACH_ERR_UNSUPPORTED;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (list == NULL)
        return rch_verbs_err(errno, "ibv_get_device_list");
    char seen[256] = "";
    int active = 0;
    for (int i = 0; i < n && !active; i++) {
        struct ibv_context *ctx = ibv_open_device(list[i]);
        if (ctx == NULL)
            continue;
        struct ibv_device_attr da;
        if (ibv_query_device(ctx, &da) == 0)
            for (uint8_t port = 1; port <= da.phys_port_cnt && !active; port++)
                active = port_active(ctx, port);
        size_t len = strlen(seen);
        snprintf(seen + len, sizeof(seen) - len, "%s%s", len ? ", " : "", ibv_get_device_name(list[i]));
        ibv_close_device(ctx);
    }
    ibv_free_device_list(list);
    if (active)
        return RDMACH_OK;
    if (n == 0)
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "verbs: no RDMA device (ibv_get_device_list found none)");
    return rch_base_err(RDMACH_ERR_UNSUPPORTED, "verbs: no RDMA device has an active port (devices: %s)", seen);
}

#endif /* RDMACH_HAVE_VERBS */
