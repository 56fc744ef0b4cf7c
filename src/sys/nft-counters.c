/* Reading back what the counter expressions of a table's rules counted
 * (nft_rule_spec.counter), for effect checks: one rule dump of the table. */
#include "sys/nft-rule.h"

#include <errno.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <string.h>
#include <time.h>

#include "basic/macro.h"
#include "sys/nft-internal.h"

#define DUMP_RULES_MAX 4096 /* far more than a lease adds */
#define DUMP_RETRIES   3

struct counted {
        const char *table;
        size_t rules;
        uint64_t packets;
};

static int expr_cb(struct nftnl_expr *e, void *data) {
        struct counted *c = data;
        const char *name = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);
        if (name && strcmp(name, "counter") == 0)
                c->packets += nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_PACKETS);
        return MNL_CB_OK;
}

static int rule_cb(const struct nlmsghdr *nlh, void *data) {
        struct counted *c = data;
        if (++c->rules > DUMP_RULES_MAX) {
                errno = E2BIG;
                return MNL_CB_ERROR;
        }
        struct nftnl_rule *r = nftnl_rule_alloc();
        if (!r) {
                errno = ENOMEM;
                return MNL_CB_ERROR;
        }
        int k = nftnl_rule_nlmsg_parse(nlh, r);
        const char *table = k < 0 ? NULL : nftnl_rule_get_str(r, NFTNL_RULE_TABLE);
        if (table && strcmp(table, c->table) == 0)
                nftnl_expr_foreach(r, expr_cb, c);
        nftnl_rule_free(r);
        if (k < 0) {
                errno = EPROTO;
                return MNL_CB_ERROR;
        }
        return MNL_CB_OK;
}

static void closemnlp(struct mnl_socket **nl) {
        if (*nl)
                mnl_socket_close(*nl);
}

int nft_table_counted(
        const char *family, const char *table, uint64_t *ret_packets, struct mh_error *reterr) {
        _cleanup_(closemnlp) struct mnl_socket *nl = NULL;
        char req[1024];
        int fam = nft_family_from_name(family), r;
        if (fam < 0 || !table || strnlen(table, 256) >= 256)
                return mh_error_fail(reterr, -EINVAL, "nftables", "no such table family or name");
        if ((r = nft_socket_open(&nl, reterr)) < 0)
                return r;
        r = -EINTR;
        for (int attempt = 0; attempt < DUMP_RETRIES && r == -EINTR; attempt++) {
                struct counted c = { .table = table };
                struct nftnl_rule *rule = nftnl_rule_alloc();
                if (!rule)
                        return mh_error_fail(reterr, -ENOMEM, "nftables", "out of memory");
                struct nlmsghdr *nlh = nftnl_rule_nlmsg_build_hdr(
                        req, NFT_MSG_GETRULE, (uint16_t)fam, NLM_F_DUMP,
                        (uint32_t)time(NULL) + (uint32_t)attempt);
                nftnl_rule_set_str(rule, NFTNL_RULE_TABLE, table);
                nftnl_rule_nlmsg_build_payload(nlh, rule);
                nftnl_rule_free(rule);
                r = nft_talk(nl, nlh, nlh->nlmsg_len, rule_cb, &c);
                if (r == 0)
                        *ret_packets = c.packets;
        }
        if (r < 0)
                return mh_error_fail(
                        reterr, r, "nftables", "rules of table %s %s: %s", family, table, strerror(-r));
        return 0;
}
