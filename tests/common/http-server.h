#pragma once

/* A loopback HTTP server for integration tests whose target is a host
 * process: a forked child that answers every connection with "200 ok" and
 * closes it (a fault on that pid stops it), killed with the test (PDEATHSIG). */

#include <sys/types.h>

/* name: the child's comm (NULL: inherited). *ret_port: its ephemeral port on
 * 127.0.0.1. Returns the child's pid, or -1. */
pid_t http_server_start(const char *name, int *ret_port);
