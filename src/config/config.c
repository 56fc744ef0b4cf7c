#include "mayhem-config.h"

#include <stdlib.h>
#include <string.h>

#include "basic/string-table.h"

static const char *const config_source_table[_CONFIG_SOURCE_MAX] = {
        [CONFIG_SOURCE_DEFAULT] = "default", [CONFIG_SOURCE_FILE] = "file",
        [CONFIG_SOURCE_PROFILE] = "profile", [CONFIG_SOURCE_ENV] = "env",
        [CONFIG_SOURCE_FLAG] = "flag",
};

const char *config_source_to_string(enum config_source s) {
        return (unsigned)s < _CONFIG_SOURCE_MAX ? config_source_table[s] : NULL;
}

/* The reference's 1.0 defaults (§9.1). */
static void set_defaults(struct mayhem_config *c) {
        c->blast_radius = (struct config_blast_radius){
                .max_services_pct = 50.0,
                .max_hosts = 2,
                .max_concurrent_faults = 3,
                .max_duration_per_fault_s = 300.0,
                .damage_quota = { .budget_s = 14400.0, .per_fault_ceiling_s = 3600.0, .window_s = 604800.0 },
        };
        c->storage_path = "mayhem.db";
        c->artifacts_dir = ".mayhem/artifacts";
        c->runtime = "docker";
        c->log_level = LOG_LEVEL_INFO;
        c->recovery_grace_s = 300.0;
        c->maniac = (struct config_maniac){ .level = 2, .run_level = 10 };
}

int config_defaults(struct mayhem_config **ret, struct mh_error *reterr) {
        struct mayhem_config *c = calloc(1, sizeof(*c));
        if (!c)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        arena_init(&c->arena, 0);
        set_defaults(c);
        *ret = c;
        return 0;
}

struct mayhem_config *config_free(struct mayhem_config *c) {
        if (!c)
                return NULL;
        arena_free(&c->arena);
        free(c);
        return NULL;
}

const struct config_origin *config_origin(const struct mayhem_config *c, const char *key) {
        for (size_t i = 0; i < c->n_origins; i++)
                if (strcmp(c->origins[i].key, key) == 0)
                        return &c->origins[i];
        return NULL;
}

const char *const *config_scope(const struct mayhem_config *c, size_t *ret_n) {
        if (c->target && c->target->n_containers > 0) {
                *ret_n = c->target->n_containers;
                return c->target->containers;
        }
        *ret_n = c->n_target_containers;
        return c->n_target_containers ? c->target_containers : NULL;
}
