#pragma once

/* Syscall numbers for pidfds where the C library's headers predate them
 * (the same on every architecture that has them). */

#include <sys/syscall.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
