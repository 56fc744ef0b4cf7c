#include "shaper/shaper.h"

#include <errno.h>
#include <inttypes.h>

#include "basic/string-table.h"

static const char *const shaper_jitter_dist_table[_SHAPER_JITTER_DIST_MAX] = {
        [SHAPER_JITTER_UNIFORM] = "uniform",
        [SHAPER_JITTER_NORMAL] = "normal",
};

DEFINE_STRING_TABLE_LOOKUP(shaper_jitter_dist, enum shaper_jitter_dist)

static int refuse(struct mh_error *reterr, const char *what, uint64_t value, uint64_t max) {
        return mh_error_fail(
                reterr, -EINVAL, "shaper_config",
                "shaper: %s %" PRIu64 " is out of range (at most %" PRIu64 ")", what, value, max);
}

static int validate_timing(const struct shaper_config *c, struct mh_error *reterr) {
        if (c->delay_ms > SHAPER_DELAY_MAX_MS)
                return refuse(reterr, "delay_ms", c->delay_ms, SHAPER_DELAY_MAX_MS);
        if (c->jitter_ms > SHAPER_DELAY_MAX_MS)
                return refuse(reterr, "jitter_ms", c->jitter_ms, SHAPER_DELAY_MAX_MS);
        if ((unsigned)c->jitter_dist >= _SHAPER_JITTER_DIST_MAX)
                return mh_error_fail(
                        reterr, -EINVAL, "shaper_config",
                        "shaper: unknown jitter distribution %d (uniform, normal)", (int)c->jitter_dist);
        if (c->reorder_percent > 100)
                return refuse(reterr, "reorder_percent", c->reorder_percent, 100);
        if (c->reorder_delay_ms > SHAPER_DELAY_MAX_MS)
                return refuse(reterr, "reorder_delay_ms", c->reorder_delay_ms, SHAPER_DELAY_MAX_MS);
        if (c->reorder_percent > 0 && c->reorder_delay_ms == 0)
                return mh_error_fail(
                        reterr, -EINVAL, "shaper_config",
                        "shaper: reorder_percent %" PRIu32
                        " needs reorder_delay_ms (how long the other packets wait)",
                        c->reorder_percent);
        if ((uint64_t)c->delay_ms + c->reorder_delay_ms > SHAPER_DELAY_MAX_MS)
                return refuse(
                        reterr, "delay_ms + reorder_delay_ms", (uint64_t)c->delay_ms + c->reorder_delay_ms,
                        SHAPER_DELAY_MAX_MS);
        return 0;
}

static int validate_bounds(const struct shaper_config *c, struct mh_error *reterr) {
        if (c->rate_bps != 0 && c->rate_bps < SHAPER_RATE_MIN_BPS)
                return mh_error_fail(
                        reterr, -EINVAL, "shaper_config",
                        "shaper: rate_bps %" PRIu64 " is below %llu (0 turns the rate limit off)",
                        c->rate_bps, SHAPER_RATE_MIN_BPS);
        if (c->rate_bps > SHAPER_RATE_MAX_BPS)
                return refuse(reterr, "rate_bps", c->rate_bps, SHAPER_RATE_MAX_BPS);
        if (c->burst_bytes > SHAPER_BURST_MAX)
                return refuse(reterr, "burst_bytes", c->burst_bytes, SHAPER_BURST_MAX);
        if (c->limit_packets > SHAPER_LIMIT_MAX)
                return refuse(reterr, "limit_packets", c->limit_packets, SHAPER_LIMIT_MAX);
        if (c->limit_bytes > SHAPER_LIMIT_BYTES_MAX)
                return refuse(reterr, "limit_bytes", c->limit_bytes, SHAPER_LIMIT_BYTES_MAX);
        return 0;
}

int shaper_config_validate(const struct shaper_config *c, struct mh_error *reterr) {
        if (!c)
                return mh_error_fail(reterr, -EINVAL, "shaper_config", "shaper: no config");
        int r = validate_timing(c, reterr);
        if (r < 0)
                return r;
        return validate_bounds(c, reterr);
}
