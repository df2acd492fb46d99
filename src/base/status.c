/* The status enum's texts and the per-thread detailed error message. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "base/base.h"

static __thread char rch_last_error[512];

RDMACH_API const char *rdmach_strerror(rdmach_status_t st)
{
    switch (st) {
    case RDMACH_OK:                  return "success";
    case RDMACH_INPROGRESS:          return "operation in progress";
    case RDMACH_AGAIN:               return "resource temporarily unavailable";
    case RDMACH_ERR_INVALID_ARG:     return "invalid argument";
    case RDMACH_ERR_NO_MEMORY:       return "out of memory";
    case RDMACH_ERR_UNSUPPORTED:     return "operation not supported";
    case RDMACH_ERR_NOT_FOUND:       return "not found";
    case RDMACH_ERR_BUSY:            return "resource busy";
    case RDMACH_ERR_TIMEOUT:         return "timed out";
    case RDMACH_ERR_NOT_INITIALIZED: return "rdmach is not initialized";
    case RDMACH_ERR_IO:              return "system call failed";
    case RDMACH_ERR_CONFIG:          return "invalid configuration";
    case RDMACH_ERR_BOOT:            return "bootstrap (process manager) failure";
    case RDMACH_ERR_BOOT_PROTOCOL:   return "malformed or unexpected PMI reply";
    case RDMACH_ERR_ABORTED:         return "job aborted";
    case RDMACH_ERR_PEER_DEAD:       return "peer died or disconnected";
    case RDMACH_ERR_CONN_REFUSED:    return "connection refused";
    case RDMACH_ERR_REG_LIMIT:       return "memory registration limit reached";
    case RDMACH_ERR_UNREACHABLE:     return "peer unreachable";
    case RDMACH_ERR_TRUNCATE:        return "message truncated";
    case RDMACH_ERR_PROTOCOL:        return "protocol error (invalid packet)";
    case RDMACH_ERR_CANCELED:        return "operation cancelled";
    case RDMACH_ERR_OTHER:           return "internal error";
    }
    return "unknown status";
}

RDMACH_API const char *rdmach_last_error(void)
{
    return rch_last_error;
}

rdmach_status_t rch_base_err(rdmach_status_t st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rch_last_error, sizeof(rch_last_error), fmt, ap);
    va_end(ap);
    return st;
}

rdmach_status_t rch_base_errno(int err, const char *what, ...)
{
    char head[256];
    va_list ap;
    va_start(ap, what);
    vsnprintf(head, sizeof(head), what, ap);
    va_end(ap);
    rdmach_status_t st;
    switch (err) {
    case ENOMEM:       st = RDMACH_ERR_NO_MEMORY; break;
    case EINVAL:       st = RDMACH_ERR_INVALID_ARG; break;
    case ENOENT:       st = RDMACH_ERR_NOT_FOUND; break;
    case EAGAIN:       st = RDMACH_AGAIN; break;
    case ETIMEDOUT:    st = RDMACH_ERR_TIMEOUT; break;
    case ECONNREFUSED: st = RDMACH_ERR_CONN_REFUSED; break;
    case ECONNRESET: case EPIPE: case ENOTCONN: st = RDMACH_ERR_PEER_DEAD; break;
    case EOPNOTSUPP:   st = RDMACH_ERR_UNSUPPORTED; break;
    default:           st = RDMACH_ERR_IO; break;
    }
    return rch_base_err(st, "%s: %s", head, strerror(err));
}

double rch_base_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t rch_base_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
