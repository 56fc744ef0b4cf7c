#pragma once

/* What the nft-*.c files share: the owner table's socket and sequence
 * counter. Not for users of sys/; they see sys/nft.h and sys/nft-rule.h. */

#include <libmnl/libmnl.h>
#include <linux/netfilter/nf_tables.h>
#include <stdint.h>

#include "basic/error.h"

struct nft_owner_table {
        struct mnl_socket *nl;
        uint32_t seq;
        int family; /* NFPROTO_* */
        char name[NFT_TABLE_MAXNAMELEN];
        struct nft_owner_table *next_closing; /* nft_owner_table_free_later()'s queue */
};

/* nft.c's bound netfilter socket of the current netns, and one request
 * with its replies run through cb until the kernel's ACK or DONE (for the
 * other files of the seam). */
int nft_socket_open(struct mnl_socket **ret, struct mh_error *reterr);
int nft_talk(struct mnl_socket *nl, const void *req, size_t len, mnl_cb_t cb, void *data);

/* NFPROTO_* for "inet", "ip", ..., or -EINVAL. */
int nft_family_from_name(const char *s);
