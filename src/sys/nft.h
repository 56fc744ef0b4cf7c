#pragma once

/* nftables over netlink (libmnl + libnftnl; the only place either is seen).
 *
 * Network faults live in tables created with the owner flag
 * (NFT_TABLE_F_OWNER, Linux >= 5.12): the kernel ties the table to the netlink
 * socket that created it and deletes it, with every chain and rule in it, when
 * that socket is closed, so an agent that crashes leaves no rule behind. Only
 * the owning socket may change an owner table; others get EPERM.
 *
 * Everything here works in the *current* network namespace. For a target's
 * namespace, create the table inside ns_net_run() (sys/ns.h): the socket
 * belongs to the namespace it was created in, whichever thread uses it
 * afterwards, and the table comes back in memory. From an ns_run_fd() child,
 * hand a dup of nft_owner_table_fd() back and wrap it with
 * nft_owner_table_adopt(). The sockets bind to port ids of their own
 * (sys/netlink-port.h). */

#include <stdbool.h>

#include "basic/error.h"
#include "basic/macro.h"

/* A netlink socket and the table it owns. */
struct nft_owner_table;

/* Creates table <family> <name> ("inet", "ip", "ip6", "arp", "bridge",
 * "netdev"; name of 1..255 bytes) with the owner flag in the current netns.
 * -EEXIST when a table of that name exists; -EOPNOTSUPP with a message naming
 * Linux 5.12 when the kernel has no owner tables; -EPERM without CAP_NET_ADMIN. */
int nft_owner_table_create(
        const char *family, const char *name, struct nft_owner_table **ret, struct mh_error *reterr);

/* Wraps fd, the netlink socket of an owner table created elsewhere (e.g. in an
 * ns_run_fd() child), taking ownership of fd even on failure. */
int nft_owner_table_adopt(
        int fd, const char *family, const char *name, struct nft_owner_table **ret, struct mh_error *reterr);

/* The socket, to keep or to pass on (SCM_RIGHTS). The table lives as long as
 * any descriptor of this socket is open, in any process. */
int nft_owner_table_fd(const struct nft_owner_table *t);
const char *nft_owner_table_name(const struct nft_owner_table *t);
/* "inet", "ip", ... as given to create() or adopt(); NULL for NULL. */
const char *nft_owner_table_family(const struct nft_owner_table *t);

/* Closes the socket: the kernel removes the table (if no other descriptor of
 * the socket is open). Accepts NULL; returns NULL. */
struct nft_owner_table *nft_owner_table_free(struct nft_owner_table *t);
DEFINE_FREEP(struct nft_owner_table, nft_owner_table_free)

/* nft_owner_table_free() on a thread of its own, started on first use and
 * kept for the life of the process. For a table already deleted through its
 * socket (nft_owner_table_delete()): closing an nftables socket makes the
 * kernel wait for the RCU grace period of that deletion inside close()
 * (Linux 6.x: several ms, holding the netns's nftables mutex), which is no
 * reason to keep the caller waiting, and a thread created per close cost
 * ~40 us of a ~250 us undo. Sockets still queued when the process exits are
 * closed by the kernel with it, and their tables go too. Without that thread
 * (out of resources) it closes in line. Accepts NULL. */
void nft_owner_table_free_later(struct nft_owner_table *t);

/* Whether table <family> <name> exists in the current netns, read from the
 * kernel's table list (for residue scans): 1 yes, 0 no, < 0 could not tell.
 * Not a bool: "could not look" must not read as "nothing left behind". */
int nft_table_exists(const char *family, const char *name, struct mh_error *reterr);

/* Whether this kernel has owner tables: 1 yes, 0 no (Linux < 5.12), < 0 when it
 * could not be told (e.g. -EPERM: needs CAP_SYS_ADMIN and CAP_NET_ADMIN).
 * Probes once, by creating and dropping a table in a throwaway netns of a
 * forked child; later calls return the remembered answer. */
int nft_owner_supported(struct mh_error *reterr);
