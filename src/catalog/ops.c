#include "ops.h"

#include "basic/string-table.h"

static const char *const net_delivery_table[_NET_DELIVERY_MAX] = {
        [NET_DELIVERY_NFT] = "nft",
        [NET_DELIVERY_SHAPER] = "shaper",
        [NET_DELIVERY_NETEM] = "netem",
        [NET_DELIVERY_TBF] = "tbf",
};
DEFINE_STRING_TABLE_LOOKUP(net_delivery, enum net_delivery)
