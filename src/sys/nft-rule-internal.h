#pragma once

/* Shared by nft-rule*.c: address literals and the expressions of one rule. */

#include <libnftnl/rule.h>
#include <netinet/in.h>

#include "sys/nft-rule.h"

union nft_addr {
        struct in_addr v4;
        struct in6_addr v6;
};

/* AF_INET or AF_INET6 for an address literal (filling *ret), -EINVAL else. */
int nft_addr_parse(const char *s, union nft_addr *ret);

/* Appends the expressions of spec to r, for a table of family (NFPROTO_*),
 * comparing with peer (NULL: no peer test); a queue action is expressed as
 * via says (NATIVE or XT, never AUTO). The spec has passed
 * nft_rule_spec_check(). */
int nft_rule_exprs_add(
        struct nftnl_rule *r, int family, const struct nft_rule_spec *spec, const char *peer,
        enum nft_queue_via via, struct mh_error *reterr);
