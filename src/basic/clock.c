#include "clock.h"

#include <errno.h>
#include <time.h>

double monotonic_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void sleep_ms(double ms) {
        if (!(ms > 0))
                return;
        long long ns = (long long)(ms * 1e6);
        struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000LL), .tv_nsec = (long)(ns % 1000000000LL) };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}
