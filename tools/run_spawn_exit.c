/*
 * rdmachrun: telling a spawning root that the job it spawned has ended
 * (run.h, boot.h RCH_BOOT_SPAWN_EXITED). The root waits for the new job's
 * first process on the port it opened for the spawn; a job that ends
 * before connecting (its program failed to start, exited before MPI_Init)
 * would otherwise leave it waiting for the whole timeout. When the job did
 * connect, the root has closed the port and the connection is refused.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "boot/boot.h"
#include "run.h"

void run_spawn_exited(const char *port, int code)
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
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    struct { uint32_t magic, code; uint64_t key; } m = { RCH_BOOT_SPAWN_EXITED, (uint32_t)code, key };
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
        (void)!send(fd, &m, sizeof(m), MSG_NOSIGNAL);
    close(fd);
}
