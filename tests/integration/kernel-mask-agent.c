/* Stands in for mayhem-agent (test-runopts sets $MAYHEM_AGENT to it): runs
 * the real agent ($MAYHEM_REAL_AGENT, same arguments) behind two pipes and
 * relays every line both ways, except that the kernel it reports in
 * capabilities.query has no sch_netem and no NFQUEUE, as many VM kernels
 * do. The impact gate then has no way to deliver a delay; everything else
 * the agent does is real. */
#include <string.h>
#include <unistd.h>

#include "common/agent-relay.h"

/* "KEY":true -> "KEY":false, in place: the line gets one byte longer per hit. */
static size_t mask(char *line, size_t len, size_t cap, const char *key_true) {
        char *p = strstr(line, key_true);
        if (!p || len + 1 >= cap)
                return len;
        p += strlen(key_true) - 4; /* at "true" */
        memmove(p + 5, p + 4, len - (size_t)(p + 4 - line) + 1);
        memcpy(p, "false", 5);
        return len + 1;
}

static bool to_controller(char *line, size_t len) {
        static char buf[1 << 20];
        if (!strstr(line, "\"kernel\":{") || len + 8 >= sizeof(buf))
                return agent_relay_write(STDOUT_FILENO, line, len);
        memcpy(buf, line, len + 1);
        len = mask(buf, len, sizeof(buf), "\"netem\":true");
        len = mask(buf, len, sizeof(buf), "\"xt_nfqueue\":true");
        len = mask(buf, len, sizeof(buf), "\"nft_queue\":true");
        return agent_relay_write(STDOUT_FILENO, buf, len);
}

static bool to_agent(char *line, size_t len) {
        return agent_relay_to_agent(line, len);
}

int main(int argc, char **argv) {
        (void)argc;
        return agent_relay_main(argv, to_agent, to_controller);
}
