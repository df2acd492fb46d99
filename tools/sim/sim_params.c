/*
 * rdmach-sim's parameter files and noise traces. A parameter file:
 *
 *   # comment
 *   shm L 300 o 150 g 40 G 0.05 O 0.05 S 16384
 *   net L 9000 o 3000 g 1500 G 0.8 O 0 S 65536
 *   nic offload                 # or onload
 *   gamma 0.3                   # ns per byte reduced
 *   copy 0.1                    # ns per byte copied through the node segment
 *   call 60                     # ns of the library's path per collective call
 *   icall 160                   # the same for a non-blocking one and its wait (call if not given)
 *   unexp 20                    # ns of the heap buffer of an unexpected eager message above
 *                               # 256 B: malloc on arrival, free at the match (0 if absent)
 *   endturns 20                 # oversubscribed node: the turns a rank whose program
 *                               # ended gives its core's hand-offs while it waits in
 *                               # the next call, before it sleeps (0 if absent)
 *   turnorder cycle 8           # oversubscribed node: the core's ranks take turns in a
 *                               # fixed cycle, the mean over 8 orders drawn (0: by index;
 *                               # 8 if not given); queue, the default: a rank keeps its
 *                               # core until it waits, the first ready rank gets it next
 *   ringcold 0.08               # ns per byte more for an eager shm send on an oversubscribed
 *                               # host: ring lines out of the core's caches (0 if absent)
 *   ringcold1 0.04              # the same with a core per rank (0 if absent)
 *   callc barrier 30 bcast 40 allreduce 60 alltoall 90
 *                               # the same per collective (any of them; call for those not given)
 *   callalgo alltoall leader 76 alltoall coreparallel 116
 *                               # the same per algorithm, before callc (sim_callalgo.c)
 *   hw ow 200 op 400 oplg 0 or 200   # hardware barrier
 *   host cores 2 switch 2500 netswitch 6000 handoff 1000
 *                               # the cores ranks share; a rank's way back to one
 *                               # after a wait (netswitch: woken by a network message);
 *                               # the turn a waiting rank gives up on its core (0 if absent);
 *                               # netturn: over the network channel, the turn each other
 *                               # waiting rank of the core takes then (0 if absent)
 *   segswitch 4 1400 8 2000     # the hand-off at the node segment's synchronisation on a
 *                               # core of N ranks (N ascending; switch if absent)
 *   segx dep 0.016 own 0.009 red 0.001 free 1024 far 0.08
 *                               # ns per byte more where node segment data that other cores
 *                               # read is written again (beyond a deposit's first `free`
 *                               # bytes; far: data its writer's core did not read) or read
 *                               # on its writer's core (sim_segx.c)
 *   l2 size 1048576 out 0.0157  # a core's L2 and a local copy's ns per byte with its
 *                               # buffers beyond it, in the L3 (needs l3; none if absent)
 *   l3 size 33554432 in 0.009 one 0.042 two 0.085
 *                               # the host's last-level cache in bytes and a copy's ns per
 *                               # byte in it, beyond it, and beyond it with another core
 *                               # copying so too (sim_cache.c; no cache model if absent)
 *   duplex shm 0 30 1024 140 16384 1100 65536 2000
 *                               # a channel's extra for a message that crossed its receiver's
 *                               # own to its sender (an exchange), by size: pairs of bytes
 *                               # (ascending from 0) and ns, interpolated (none if absent)
 *   shm and net also take orecv (the receive overhead, o if not given),
 *   obusy (its extra for a message that waited for its receiver, 0) and
 *   rndv (the receiver's CPU per rendezvous transfer, 0) and Gsend (an
 *   onload channel's sender CPU per byte of its data, on its core; 0)
 *
 * Times in ns, G and O in ns per byte, S in bytes. Unknown words, missing
 * or negative values are errors naming the file and line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"

void sim_params_default(struct sim_params *p)
{
    /* A shared-memory node and a 100 Gb/s-class offloading network, for
     * study until `rdmach-sim calibrate` measures the machine. */
    *p = (struct sim_params){
        .ch = {
            [SIM_SHM] = { .L = 250, .o = 150, .g = 50, .G = 0.08, .O = 0.05, .S = 16384, .orecv = 150 },
            [SIM_NET] = { .L = 1500, .o = 400, .g = 300, .G = 0.08, .O = 0, .S = 65536, .orecv = 400 },
        },
        .onload = 0,
        .gamma = 0.25,
        .beta = 0.1,
        .hw_ow = 300, .hw_op = 600, .hw_oplg = 0, .hw_or = 300,
        .cores = 0, .sw = 2500, .sw_net = 2500,   /* a core per rank; a yield hand-off (src/device/progress.c) */
        .callc = { -1, -1, -1, -1 },              /* `call` for every collective */
    };
}

static int number(const char *w, double *v)
{
    char *e;
    if (!w)
        return -1;
    errno = 0;
    *v = strtod(w, &e);
    return errno || e == w || *e || !(*v >= 0) ? -1 : 0;
}

/* key value pairs of one line into the fields named in keys/fields */
static int pairs(char *save, const char *const *keys, double *const *fields, int nkeys, const char *path, int line,
                 char *err, size_t len)
{
    char *k;
    while ((k = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
        int i = 0;
        while (i < nkeys && strcmp(k, keys[i]) != 0)
            i++;
        if (i == nkeys) {
            char list[128] = "";
            for (int j = 0; j < nkeys; j++)
                snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", j ? ", " : "", keys[j]);
            snprintf(err, len, "%s:%d: unknown parameter '%s' (expected %s)", path, line, k, list);
            return -1;
        }
        char *v = strtok_r(NULL, " \t\r\n", &save);
        if (number(v, fields[i]) != 0) {
            snprintf(err, len, "%s:%d: parameter '%s' needs a non-negative number, got '%s'", path, line, k,
                     v ? v : "nothing");
            return -1;
        }
    }
    return 0;
}

/* The rest of a line as pairs 'KEY NS': keys integers ascending from
 * `least`, at most max pairs, at least one. The pairs' count, -1 if the
 * line is not so, -2 if it has none. */
static int key_pairs(char *save, double least, int max, double *keys, double *ns)
{
    char *w;
    int n = 0;
    while ((w = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
        double k;
        if (n == max || number(w, &k) != 0 || k < least || k != (double)(long)k || (n && k <= keys[n - 1]) ||
            number(strtok_r(NULL, " \t\r\n", &save), &ns[n]) != 0)
            return -1;
        keys[n++] = k;
    }
    return n ? n : -2;
}

/* segswitch N NS ...: pairs, N ascending integers from 1 */
static int segswitch_line(char *save, struct sim_params *p, const char *path, int line, char *err, size_t len)
{
    int n = key_pairs(save, 1, SIM_SEGSW_MAX, p->segsw_n, p->segsw);
    p->nsegsw = n > 0 ? n : 0;
    if (n == -1)
        snprintf(err, len, "%s:%d: segswitch takes up to %d pairs 'ranks-on-a-core ns', ranks ascending from 1",
                 path, line, SIM_SEGSW_MAX);
    else if (n == -2)
        snprintf(err, len, "%s:%d: segswitch needs at least one pair 'ranks-on-a-core ns'", path, line);
    return n > 0 ? 0 : -1;
}

/* duplex shm|net B NS ...: pairs, B ascending */
static int duplex_line(char *save, struct sim_params *p, const char *path, int line, char *err, size_t len)
{
    char *w = strtok_r(NULL, " \t\r\n", &save);
    if (!w || (strcmp(w, "shm") && strcmp(w, "net"))) {
        snprintf(err, len, "%s:%d: duplex needs a channel (shm or net), got '%s'", path, line, w ? w : "nothing");
        return -1;
    }
    struct sim_loggops *c = &p->ch[!strcmp(w, "net") ? SIM_NET : SIM_SHM];
    int n = key_pairs(save, 0, SIM_DUPLEX_MAX, c->dx_b, c->dx);
    c->ndx = n > 0 ? n : 0;
    if (n == -1)
        snprintf(err, len, "%s:%d: duplex takes a channel and up to %d pairs 'bytes ns', bytes ascending", path, line,
                 SIM_DUPLEX_MAX);
    else if (n == -2)
        snprintf(err, len, "%s:%d: duplex needs at least one pair 'bytes ns'", path, line);
    return n > 0 ? 0 : -1;
}

double sim_duplex_ns(const struct sim_loggops *c, double len)
{
    if (c->ndx == 0)
        return 0;
    int i = 1;
    while (i < c->ndx - 1 && len > c->dx_b[i])
        i++;
    if (c->ndx == 1 || len <= c->dx_b[0])
        return c->dx[0];
    double v = c->dx[i - 1] + (c->dx[i] - c->dx[i - 1]) * (len - c->dx_b[i - 1]) / (c->dx_b[i] - c->dx_b[i - 1]);
    return v > 0 ? v : 0;
}

int sim_params_load(const char *path, struct sim_params *p, char *err, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    sim_params_default(p);
    /* not given: orecv is o, netswitch is switch */
    p->ch[SIM_SHM].orecv = p->ch[SIM_NET].orecv = p->sw_net = p->icall = -1;
    char buf[1024];
    int line = 0, rc = 0;
    while (rc == 0 && fgets(buf, sizeof(buf), f)) {
        line++;
        char *hash = strchr(buf, '#'), *save;
        if (hash)
            *hash = '\0';
        char *w = strtok_r(buf, " \t\r\n", &save);
        if (!w)
            continue;
        if (!strcmp(w, "shm") || !strcmp(w, "net")) {
            struct sim_loggops *c = &p->ch[!strcmp(w, "net") ? SIM_NET : SIM_SHM];
            static const char *const keys[] = { "L", "o", "g", "G", "O", "S", "orecv", "obusy", "rndv", "Gsend" };
            double *const fields[] = { &c->L, &c->o, &c->g, &c->G, &c->O, &c->S, &c->orecv, &c->obusy, &c->rndv, &c->Gsend };
            rc = pairs(save, keys, fields, 10, path, line, err, len);
        } else if (!strcmp(w, "hw")) {
            static const char *const keys[] = { "ow", "op", "oplg", "or" };
            double *const fields[] = { &p->hw_ow, &p->hw_op, &p->hw_oplg, &p->hw_or };
            rc = pairs(save, keys, fields, 4, path, line, err, len);
        } else if (!strcmp(w, "host")) {
            static const char *const keys[] = { "cores", "switch", "netswitch", "handoff", "netturn" };
            double *const fields[] = { &p->cores, &p->sw, &p->sw_net, &p->handoff, &p->netturn };
            rc = pairs(save, keys, fields, 5, path, line, err, len);
        } else if (!strcmp(w, "gamma") || !strcmp(w, "copy") || !strcmp(w, "call") || !strcmp(w, "icall") ||
                   !strcmp(w, "unexp") || !strcmp(w, "ringcold") || !strcmp(w, "ringcold1")) {
            char *v = strtok_r(NULL, " \t\r\n", &save);
            double *f = w[0] == 'g' ? &p->gamma : !strcmp(w, "copy") ? &p->beta : w[0] == 'i' ? &p->icall
                      : w[0] == 'u' ? &p->unexp : w[0] == 'r' ? (w[8] ? &p->ringcold1 : &p->ringcold) : &p->call;
            if (number(v, f) != 0 || strtok_r(NULL, " \t\r\n", &save)) {
                snprintf(err, len, "%s:%d: %s needs one non-negative number (%s)", path, line, w,
                         f == &p->gamma || f == &p->beta || f == &p->ringcold || f == &p->ringcold1 ? "ns per byte" : "ns");
                rc = -1;
            }
        } else if (!strcmp(w, "endturns")) {
            char *v = strtok_r(NULL, " \t\r\n", &save);
            if (number(v, &p->endturns) != 0 || strtok_r(NULL, " \t\r\n", &save)) {
                snprintf(err, len, "%s:%d: endturns needs one non-negative number (turns)", path, line);
                rc = -1;
            }
        } else if (!strcmp(w, "turnorder")) {
            char *v = strtok_r(NULL, " \t\r\n", &save), *k = v ? strtok_r(NULL, " \t\r\n", &save) : NULL;
            p->cycle = v && !strcmp(v, "cycle");
            p->cycle_orders = 8;
            if (!v || (strcmp(v, "cycle") && strcmp(v, "queue")) || (k && (!p->cycle || number(k, &p->cycle_orders) != 0 ||
                p->cycle_orders != (int)p->cycle_orders || p->cycle_orders > 1000)) || strtok_r(NULL, " \t\r\n", &save)) {
                snprintf(err, len, "%s:%d: turnorder must be 'queue' or 'cycle [N]' (N: the orders drawn, 0-1000; 0: by index)",
                         path, line);
                rc = -1;
            }
        } else if (!strcmp(w, "callalgo")) {
            rc = sim_callalgo_line(save, p, path, line, err, len);
        } else if (!strcmp(w, "segswitch")) {
            rc = segswitch_line(save, p, path, line, err, len);
        } else if (!strcmp(w, "duplex")) {
            rc = duplex_line(save, p, path, line, err, len);
        } else if (!strcmp(w, "l2")) {
            static const char *const keys[] = { "size", "out" };
            double *const fields[] = { &p->l2, &p->l2_out };
            rc = pairs(save, keys, fields, 2, path, line, err, len);
        } else if (!strcmp(w, "l3")) {
            static const char *const keys[] = { "size", "in", "one", "two" };
            double *const fields[] = { &p->l3, &p->l3_in, &p->l3_one, &p->l3_two };
            rc = pairs(save, keys, fields, 4, path, line, err, len);
        } else if (!strcmp(w, "segx")) {
            static const char *const keys[] = { "dep", "own", "red", "free", "far" };
            double *const fields[] = { &p->segx_dep, &p->segx_own, &p->segx_red, &p->segx_free, &p->segx_far };
            rc = pairs(save, keys, fields, 5, path, line, err, len);
        } else if (!strcmp(w, "callc")) {
            double *const fields[] = { &p->callc[0], &p->callc[1], &p->callc[2], &p->callc[3] };
            rc = pairs(save, sim_callc_names, fields, SIM_CALLC, path, line, err, len);
        } else if (!strcmp(w, "nic")) {
            char *v = strtok_r(NULL, " \t\r\n", &save);
            if (v && !strcmp(v, "onload"))
                p->onload = 1;
            else if (v && !strcmp(v, "offload"))
                p->onload = 0;
            else {
                snprintf(err, len, "%s:%d: nic must be onload or offload, got '%s'", path, line, v ? v : "nothing");
                rc = -1;
            }
        } else {
            snprintf(err, len, "%s:%d: unknown line '%s' (expected shm, net, nic, gamma, copy, call, icall, unexp, ringcold, ringcold1, endturns, turnorder, callc, callalgo, segswitch, duplex, segx, l2, l3, hw or host)", path, line, w);
            rc = -1;
        }
    }
    for (int c = 0; c < SIM_CHAN_MAX; c++)
        if (p->ch[c].orecv < 0)
            p->ch[c].orecv = p->ch[c].o;
    if (p->sw_net < 0)
        p->sw_net = p->sw;
    if (p->icall < 0)
        p->icall = p->call;
    if (rc == 0 && ferror(f)) {
        snprintf(err, len, "%s: read error", path);
        rc = -1;
    }
    fclose(f);
    return rc;
}

int sim_params_save(const char *path, const struct sim_params *p, const char *comment)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# rdmach-sim parameters (ns; G, O in ns per byte; S in bytes)\n%s", comment ? comment : "");
    for (int c = 0; c < SIM_CHAN_MAX; c++) {
        const struct sim_loggops *x = &p->ch[c];
        fprintf(f, "%s L %.1f o %.1f g %.1f G %.5f O %.5f S %.0f orecv %.1f obusy %.1f rndv %.1f",
                c == SIM_SHM ? "shm" : "net", x->L, x->o, x->g, x->G, x->O, x->S, x->orecv, x->obusy, x->rndv);
        fprintf(f, x->Gsend > 0 ? " Gsend %.5f\n" : "\n", x->Gsend);
    }
    fprintf(f, "nic %s\ngamma %.4f\ncopy %.4f\nhw ow %.1f op %.1f oplg %.1f or %.1f\n", p->onload ? "onload" : "offload",
            p->gamma, p->beta, p->hw_ow, p->hw_op, p->hw_oplg, p->hw_or);
    fprintf(f, "call %.1f\nicall %.1f\nhost cores %.0f switch %.1f netswitch %.1f handoff %.1f", p->call, p->icall,
            p->cores, p->sw, p->sw_net, p->handoff);
    fprintf(f, p->netturn > 0 ? " netturn %.1f\n" : "\n", p->netturn);
    if (p->unexp > 0)
        fprintf(f, "unexp %.1f\n", p->unexp);
    if (p->l3 > 0)
        fprintf(f, "l3 size %.0f in %.5f one %.5f two %.5f\n", p->l3, p->l3_in, p->l3_one, p->l3_two);
    if (p->l2 > 0)
        fprintf(f, "l2 size %.0f out %.5f\n", p->l2, p->l2_out);
    for (int i = 0; i < p->nsegsw; i++)
        fprintf(f, "%s %.0f %.1f%s", i ? "" : "segswitch", p->segsw_n[i], p->segsw[i], i + 1 == p->nsegsw ? "\n" : "");
    for (int c = 0; c < SIM_CHAN_MAX; c++)
        for (int i = 0; i < p->ch[c].ndx; i++)
            fprintf(f, "%s%s %.0f %.1f%s", i ? "" : "duplex ", i ? "" : c == SIM_SHM ? "shm" : "net", p->ch[c].dx_b[i],
                    p->ch[c].dx[i], i + 1 == p->ch[c].ndx ? "\n" : "");
    if (p->ringcold > 0)
        fprintf(f, "ringcold %.4f\n", p->ringcold);
    if (p->endturns > 0)
        fprintf(f, "endturns %.0f\n", p->endturns);
    if (p->ringcold1 > 0)
        fprintf(f, "ringcold1 %.4f\n", p->ringcold1);
    if (p->cycle)
        fprintf(f, "turnorder cycle %.0f\n", p->cycle_orders);
    if (sim_segx_on(p))
        fprintf(f, "segx dep %.5f own %.5f red %.5f free %.0f far %.5f\n", p->segx_dep, p->segx_own, p->segx_red,
                p->segx_free, p->segx_far);
    int given = 0;
    for (int i = 0; i < SIM_CALLC; i++)
        if (p->callc[i] >= 0)
            fprintf(f, "%s %s %.1f", given++ ? "" : "callc", sim_callc_names[i], p->callc[i]);
    if (given)
        fputc('\n', f);
    sim_callalgo_save(f, p);
    return fclose(f);
}

int sim_noise_load_trace(const char *path, struct sim_noise *n, char *err, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    char buf[256];
    int line = 0, rc = 0;
    size_t cap = 0;
    double last = -1;
    n->tn = 0;
    n->span = 0;
    while (rc == 0 && fgets(buf, sizeof(buf), f)) {
        line++;
        if (line == 1 && !strncmp(buf, "start_ns,length_ns", 18))
            continue;
        char *e1, *e2;
        double st = strtod(buf, &e1), ln = *e1 == ',' ? strtod(e1 + 1, &e2) : -1;
        if (*e1 != ',' || e1 == buf || ln < 0 || (*e2 != '\n' && *e2 != '\0' && *e2 != '\r') || st < 0) {
            snprintf(err, len, "%s:%d: expected start_ns,length_ns (two non-negative numbers)", path, line);
            rc = -1;
            break;
        }
        if (st < last) {
            snprintf(err, len, "%s:%d: detours must be in order of their start", path, line);
            rc = -1;
            break;
        }
        last = st + ln;
        if (n->tn == cap) {
            cap = cap ? cap * 2 : 1024;
            double *a = realloc(n->tstart, cap * sizeof(double)), *b = a ? realloc(n->tlen, cap * sizeof(double)) : NULL;
            if (a)
                n->tstart = a;
            if (!a || !b) {
                snprintf(err, len, "%s: no memory", path);
                rc = -1;
                break;
            }
            n->tlen = b;
        }
        n->tstart[n->tn] = st;
        n->tlen[n->tn++] = ln;
    }
    fclose(f);
    if (rc == 0 && n->tn == 0) {
        snprintf(err, len, "%s: no detours in the trace", path);
        rc = -1;
    }
    if (rc == 0) {
        n->kind = 2;
        n->span = last * 1.0001 + 1000;   /* the trace repeats after its last detour */
    } else {
        free(n->tstart);
        free(n->tlen);
        n->tstart = n->tlen = NULL;
        n->tn = 0;
    }
    return rc;
}
