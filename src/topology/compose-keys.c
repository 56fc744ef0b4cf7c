/* Which keys of a compose file we say something about. The topology reads
 * a few service keys (image, container_name, network_mode, ports, networks,
 * depends_on, cap_add, healthcheck, deploy, scale, profiles); every other key
 * of the compose specification changes nothing mayhem plans with and is
 * passed over in silence. A key that is in no compose specification is a
 * typo or a tool's private key: it is a warning naming the key, with the
 * closest compose key. include: and extends: would change the topology and
 * are not followed: a warning says so. x-* keys are the spec's extensions. */

#include "compose-internal.h"

#include "basic/suggest.h"

/* The compose specification's top-level keys. */
static const char *const top_keys[] = {
        "configs", "include", "models", "name", "networks", "secrets", "services", "version", "volumes",
};

/* The compose specification's service keys (compose-spec schema, 2025). */
static const char *const service_keys[] = {
        "annotations",
        "attach",
        "blkio_config",
        "build",
        "cap_add",
        "cap_drop",
        "cgroup",
        "cgroup_parent",
        "command",
        "configs",
        "container_name",
        "cpu_count",
        "cpu_percent",
        "cpu_period",
        "cpu_quota",
        "cpu_rt_period",
        "cpu_rt_runtime",
        "cpu_shares",
        "cpus",
        "cpuset",
        "credential_spec",
        "depends_on",
        "deploy",
        "develop",
        "device_cgroup_rules",
        "devices",
        "dns",
        "dns_opt",
        "dns_search",
        "domainname",
        "entrypoint",
        "env_file",
        "environment",
        "expose",
        "extends",
        "external_links",
        "extra_hosts",
        "gpus",
        "group_add",
        "healthcheck",
        "hostname",
        "image",
        "init",
        "ipc",
        "isolation",
        "label_file",
        "labels",
        "links",
        "logging",
        "mac_address",
        "mem_limit",
        "mem_reservation",
        "mem_swappiness",
        "memswap_limit",
        "models",
        "network_mode",
        "networks",
        "oom_kill_disable",
        "oom_score_adj",
        "pid",
        "pids_limit",
        "platform",
        "ports",
        "post_start",
        "pre_stop",
        "privileged",
        "profiles",
        "provider",
        "pull_policy",
        "read_only",
        "restart",
        "runtime",
        "scale",
        "secrets",
        "security_opt",
        "shm_size",
        "stdin_open",
        "stop_grace_period",
        "stop_signal",
        "storage_opt",
        "sysctls",
        "tmpfs",
        "tty",
        "ulimits",
        "use_api_socket",
        "user",
        "userns_mode",
        "uts",
        "volumes",
        "volumes_from",
        "working_dir",
};

static bool listed(const char *key, const char *const *keys, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (streq(key, keys[i]))
                        return true;
        return false;
}

static int check_keys(
        const struct compose_ctx *c, const struct ynode *map, const char *where, const char *what,
        const char *const *keys, size_t n) {
        char w[COMPOSE_WHERE_MAX];
        for (size_t i = 0; map && map->kind == YNODE_MAP && i < map->n_pairs; i++) {
                const struct ynode *key = map->pairs[i].key;
                if (strncmp(key->text, "x-", 2) == 0 || listed(key->text, keys, n))
                        continue;
                const char *hint = suggest_closest(key->text, keys, n);
                compose_where_key(w, where, key->text);
                int r = compose_warn(
                        c, key, w, "not a compose %s key; ignored%s%s%s", what,
                        hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The key of map's entry key, for a message that points at the key. */
static const struct ynode *key_node(const struct ynode *map, const char *key) {
        for (size_t i = 0; map && map->kind == YNODE_MAP && i < map->n_pairs; i++)
                if (streq(map->pairs[i].key->text, key))
                        return map->pairs[i].key;
        return NULL;
}

int compose_check_top_keys(const struct compose_ctx *c, const struct ynode *root) {
        const struct ynode *include = ynode_get(root, "include");
        int r = check_keys(c, root, "", "top-level", top_keys, ELEMENTSOF(top_keys));
        if (r >= 0 && include && !ynode_is_null(include))
                r = compose_warn(
                        c, key_node(root, "include"), "include",
                        "not supported: the services of included files are not in the topology (merge them "
                        "into this file, or pass the file that defines the targets with -c)");
        return r;
}

int compose_check_service_keys(const struct compose_ctx *c, const struct ynode *svc, const char *where) {
        char w[COMPOSE_WHERE_MAX];
        const struct ynode *extends = ynode_get(svc, "extends");
        int r = check_keys(c, svc, where, "service", service_keys, ELEMENTSOF(service_keys));
        compose_where_key(w, where, "extends");
        if (r >= 0 && extends && !ynode_is_null(extends))
                r = compose_warn(
                        c, key_node(svc, "extends"), w,
                        "not followed: what the service would inherit (image, ports, networks, ...) is not "
                        "read; write it in the service");
        return r;
}
