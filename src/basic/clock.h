#pragma once

/* Milliseconds on CLOCK_MONOTONIC: for deadlines and durations, never dates. */
double monotonic_ms(void);

/* Sleeps ms milliseconds, resuming after a signal handler returns. */
void sleep_ms(double ms);
