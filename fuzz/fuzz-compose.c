/* Feeds arbitrary bytes to the compose reader. On success the topology is
 * checked against what topology.h promises (every container resolves to
 * itself, lookups agree with the arrays, the graph walk stays in bounds,
 * JSON builds); on failure the error must be complete. */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topology/topology.h"

/* Larger inputs only repeat what small ones reach, more slowly. */
#define FUZZ_INPUT_MAX (256u * 1024u)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_services(const struct topology *t, size_t *scratch) {
        for (size_t i = 0; i < t->n_services; i++) {
                const struct topo_service *svc = &t->services[i];
                size_t idx = SIZE_MAX;
                assert(topology_find_service(t, svc->name, &idx) == 0 && idx == i);
                assert(svc->first_container + svc->replicas <= t->n_containers);
                assert(!svc->container_name || svc->replicas == 1);
                for (size_t j = 0; j < svc->n_depends_on; j++)
                        assert(svc->depends_on_index[j] < t->n_services &&
                               strcmp(t->services[svc->depends_on_index[j]].name, svc->depends_on[j]) == 0);
                for (size_t j = 0; j < svc->n_ports; j++)
                        assert(svc->ports[j].container_port > 0 && svc->ports[j].protocol);
                size_t n = topology_dependents(t, i, scratch, t->n_services);
                assert(n < t->n_services || t->n_services == 0);
                for (size_t j = 0; j < n; j++)
                        assert(scratch[j] < t->n_services && scratch[j] != i);
        }
}

static void check_containers(const struct topology *t) {
        for (size_t i = 0; i < t->n_containers; i++) {
                const struct topo_container *c = &t->containers[i], *found = NULL;
                struct mh_error e;
                assert(c->service < t->n_services && c->replica >= 1);
                assert(topology_find_container(t, c->name) == c);
                assert(topology_resolve(t, c->name, &found, &e) == 0 && found == c);
        }
}

static void check_error(const struct mh_error *e) {
        assert(e->code < 0);
        assert(e->msg[0] != '\0');
        assert(memchr(e->msg, '\0', sizeof(e->msg)));
        if (e->line > 0)
                assert(e->path[0] != '\0' && e->col > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct topology *t = NULL;
        struct mh_error e = { 0 };

        if (size > FUZZ_INPUT_MAX)
                return 0;
        if (compose_parse("fuzz/compose.yaml", (const char *)data, size, &t, &e) < 0) {
                assert(!t);
                check_error(&e);
                return 0;
        }
        size_t *scratch = malloc((t->n_services + 1) * sizeof(size_t));
        assert(scratch);
        check_services(t, scratch);
        check_containers(t);
        free(scratch);

        const struct topo_container *c = NULL;
        if (topology_resolve(t, "no such target", &c, &e) < 0)
                check_error(&e);
        json_t *j = NULL;
        if (topology_to_json(t, &j) == 0)
                json_decref(j);
        topology_free(t);
        return 0;
}
