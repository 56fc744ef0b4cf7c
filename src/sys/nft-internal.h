#pragma once

/* What the nft-*.c files share: the owner table's socket and sequence
 * counter. Not for users of sys/; they see sys/nft.h and sys/nft-rule.h. */

#include <libmnl/libmnl.h>
#include <linux/netfilter/nf_tables.h>
#include <stdint.h>

struct nft_owner_table {
        struct mnl_socket *nl;
        uint32_t seq;
        int family; /* NFPROTO_* */
        char name[NFT_TABLE_MAXNAMELEN];
        struct nft_owner_table *next_closing; /* nft_owner_table_free_later()'s queue */
};

/* NFPROTO_* for "inet", "ip", ..., or -EINVAL. */
int nft_family_from_name(const char *s);
