#pragma once

/* The sections of bench/bench-resources: each runs its fault and a
 * stress-ng equivalent on one container and prints them side by side; < 0
 * when a side could not run (the message is printed). */

/* mem.exhaust vs stress-ng --vm 1 --vm-keep on container (which must have a
 * memory limit): bench-resources-mem.c. */
int bench_mem_section(const char *container);
