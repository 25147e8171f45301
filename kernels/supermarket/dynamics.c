/* `supermarket` dynamics: one replication, run by the engine the point chose
 * (docs/models/supermarket.md): per-server queues (servers.c; any service law, sojourns and job
 * delays) or occupancy counts (counts.c; exponential service, memory independent of n). */
#include "internal.h"

int storq_smk_replicate(const void *vctx, const storq_stream_key *key, storq_record *rec,
                  storq_error *err)
{
    const smk_ctx *c = vctx;
    if (c->engine == SMK_ENGINE_COUNTS)
        return storq_smk_run_counts(c, key, rec, err);
    return storq_smk_run_servers(c, key, rec, err);
}
