/*
 * rdmachrun: telling a spawning root that the job it spawned has ended
 * (run.h, boot.h RCH_BOOT_SPAWN_EXITED). The root waits for the new job's
 * first process on the port it opened for the spawn; a job that ends
 * before connecting (its program failed to start, exited before MPI_Init)
 * would otherwise leave it waiting for the whole timeout. When the job did
 * connect, the root has closed the port, and the port number may since
 * belong to another program on this host (a CI run: a concurrent test's
 * Hydra mpiexec took it and read our message as a proxy's, which failed
 * its job): so the message goes only to a socket of the root's process
 * that listens on the port (/proc/net/tcp{,6}, /proc/ROOT/fd).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "boot/boot.h"
#include "run.h"

/* The inodes of the sockets listening on TCP port p (/proc/net/tcp and
 * tcp6: "sl local_address rem_address st ... inode", st 0A = LISTEN), up
 * to max of them. */
static int listeners(unsigned p, unsigned long *ino, int max)
{
    static const char *const tables[] = { "/proc/net/tcp", "/proc/net/tcp6" };
    int n = 0;
    for (int t = 0; t < 2; t++) {
        FILE *f = fopen(tables[t], "r");
        char line[512];
        while (f && n < max && fgets(line, sizeof(line), f)) {
            char local[64];
            unsigned st;
            unsigned long inode;
            if (sscanf(line, " %*s %63s %*s %x %*s %*s %*s %*s %*s %lu", local, &st, &inode) != 3)
                continue;     /* the header */
            const char *colon = strrchr(local, ':');
            if (st == 0x0A && colon && strtoul(colon + 1, NULL, 16) == p)
                ino[n++] = inode;
        }
        if (f)
            fclose(f);
    }
    return n;
}

/* Does process pid hold one of the sockets ino[0..n)? */
static int holds_socket(pid_t pid, const unsigned long *ino, int n)
{
    char dir[64], path[320], target[64];
    snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d)) != NULL) {
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        ssize_t k = readlink(path, target, sizeof(target) - 1);
        unsigned long inode;
        if (k <= 0)
            continue;
        target[k] = '\0';
        if (sscanf(target, "socket:[%lu]", &inode) == 1)
            for (int i = 0; i < n && !found; i++)
                found = ino[i] == inode;
    }
    if (d)
        closedir(d);
    return found;
}

void run_spawn_exited(const char *port, pid_t root, int code)
{
    char ip[INET_ADDRSTRLEN + 1];
    unsigned p;
    unsigned long long key;
    struct sockaddr_in a = { .sin_family = AF_INET };
    /* the port name's form: src/mpi/dyn_sock.c, rch_dyn_port_name */
    if (sscanf(port, "rdmach-port:%16[0-9.]:%u:%16llx", ip, &p, &key) != 3 || p == 0 || p > 65535 ||
        inet_pton(AF_INET, ip, &a.sin_addr) != 1)
        return;
    a.sin_port = htons((uint16_t)p);
    unsigned long ino[16];
    int n = listeners(p, ino, 16);
    if (root <= 0 || n == 0 || !holds_socket(root, ino, n))
        return;       /* the root's port is closed: its job connected, or the root is gone */
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    struct { uint32_t magic, code; uint64_t key; } m = { RCH_BOOT_SPAWN_EXITED, (uint32_t)code, key };
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
        (void)!send(fd, &m, sizeof(m), MSG_NOSIGNAL);
    close(fd);
}
