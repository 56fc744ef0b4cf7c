#pragma once

/* Reading the kernel's answers to one nfnetlink batch, from raw bytes: the
 * ACK (or error) of each message that asked for one, and the handle of each
 * rule the kernel echoed (NLM_F_ECHO). Kept apart from the socket so that it
 * can be fuzzed (fuzz/fuzz-nft-reply.c): it trusts nothing in the bytes and
 * never reads outside them. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Messages of one batch that ask for an ACK (a chain, or the rules of one
 * spec: NFT_RULE_PEERS_MAX of them). */
#define NFT_REPLY_MSGS_MAX 32

struct nft_reply {
        /* Set by the caller before the first feed: the sequence numbers of the
         * acked messages are seq_first .. seq_first + n - 1; batch_seq is that
         * of the batch-begin message (an error there fails the whole batch). */
        uint32_t seq_first, batch_seq;
        size_t n;
        /* Whether every acked message is a rule whose echo (and handle) is
         * awaited before the batch counts as answered. */
        bool want_handles;
        /* Filled in by nft_reply_feed(). */
        size_t acked;
        bool acked_seq[NFT_REPLY_MSGS_MAX];
        int error;          /* first -errno the kernel reported, 0 if none */
        size_t error_index; /* which message it answered; n for the batch itself */
        bool has_handle[NFT_REPLY_MSGS_MAX];
        uint64_t handle[NFT_REPLY_MSGS_MAX];
};

/* Runs len bytes of one datagram through r. Returns 1 when every message has
 * its answer (or the batch as a whole failed), 0 when more are to come,
 * -EPROTO for bytes that are not well-formed netlink messages, -EINVAL for an
 * r that does not fit NFT_REPLY_MSGS_MAX. Messages that belong to nothing of
 * ours (other sequence numbers, other types) are skipped. */
int nft_reply_feed(struct nft_reply *r, const void *buf, size_t len);
