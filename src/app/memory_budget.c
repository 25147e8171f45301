#include "memory_budget.h"

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"

/* The bytes of the "KEY: N kB" line of a /proc file (FORMAT scans it), or MISSING when absent. */
static size_t proc_kib_line(const char *path, const char *format, size_t missing)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return missing;
    char line[256];
    unsigned long long kib = 0;
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = sscanf(line, format, &kib) == 1;
    fclose(f);
    return found ? storq_bytes_mul((size_t)kib, 1024) : missing;
}

/* MemAvailable from /proc/meminfo in bytes, or SIZE_MAX when unknown. */
static size_t meminfo_available(void)
{
    return proc_kib_line("/proc/meminfo", "MemAvailable: %llu kB", SIZE_MAX);
}

/* A cgroup v2 file holding one number ("max" means no limit): SIZE_MAX when absent or "max". */
static size_t cgroup_number(const char *dir, const char *file)
{
    char path[4200];
    snprintf(path, sizeof path, "/sys/fs/cgroup%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return SIZE_MAX;
    unsigned long long v;
    int ok = fscanf(f, "%llu", &v) == 1;
    fclose(f);
    return ok ? (size_t)v : SIZE_MAX;
}

/* The room left under this process's cgroup (v2) limits, the tightest over its ancestors, or
 * SIZE_MAX without a limit. */
static size_t cgroup_available(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return SIZE_MAX;
    char line[4096], dir[4096] = "";
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "0::", 3)) {
            snprintf(dir, sizeof dir, "%s", line + 3);
            dir[strcspn(dir, "\n")] = '\0';
        }
    fclose(f);
    size_t room = SIZE_MAX;
    for (;;) {
        size_t max = cgroup_number(dir, "memory.max"), used = cgroup_number(dir, "memory.current");
        if (max != SIZE_MAX) {
            size_t left = used != SIZE_MAX && used < max ? max - used : 0;
            if (used == SIZE_MAX)
                left = max;
            if (left < room)
                room = left;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || dir[0] == '\0')
            break;
        *slash = '\0';
    }
    return room;
}

/* What this process holds already (VmRSS: the program, its libraries, MPI's buffers), in bytes. */
static size_t resident_bytes(void)
{
    return proc_kib_line("/proc/self/status", "VmRSS: %llu kB", 0);
}

/* Room kept for HDF5 while rank 0 writes: its metadata cache (at most 4 MB, io/h5_util.c) and the
 * free lists and buffers of its first points (a sweep's writer grew by 30 MB over its first 250
 * points; what each later point adds is counted with the points, src/app/point_list.c). */
#define HDF5_CACHES ((size_t)40 << 20)

static size_t node_available(void)
{
    size_t a = meminfo_available(), c = cgroup_available();
    a = c < a ? c : a;
    return a == SIZE_MAX ? (size_t)8 << 30 : a;
}

/* The node's budget and where it comes from. */
static int node_budget(const char *limit_text, size_t *bytes, char *source, size_t len,
                       storq_error *err)
{
    const char *env = getenv("STORQ_MEMORY_LIMIT");
    if (limit_text) {
        if (storq_memory_parse_size(limit_text, bytes))
            return storq_fail(err, STORQ_ERR_USAGE, "--memory-limit: '%.40s' is not a size; give "
                              "bytes or a number with K, M, G or T (e.g. 16G)", limit_text);
        snprintf(source, len, "--memory-limit %s", limit_text);
    } else if (env && *env) {
        if (storq_memory_parse_size(env, bytes))
            return storq_fail(err, STORQ_ERR_USAGE, "STORQ_MEMORY_LIMIT: '%.40s' is not a size; "
                              "give bytes or a number with K, M, G or T (e.g. 16G)", env);
        snprintf(source, len, "STORQ_MEMORY_LIMIT=%s", env);
    } else {
        *bytes = node_available();
        snprintf(source, len, "the node's available memory, %.3g GiB", (double)*bytes / (1 << 30));
    }
    return STORQ_OK;
}

int storq_memory_budget_setup(MPI_Comm comm, const char *limit_text, storq_error *err)
{
    char source[160];
    size_t node_bytes;
    int rc = node_budget(limit_text, &node_bytes, source, sizeof source, err);
    /* every rank reads the same options; only the available memory differs between nodes */
    if (rc)
        return rc;
    MPI_Comm node;
    int ranks_on_node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &ranks_on_node);
    MPI_Comm_free(&node);
    /* what a rank holds before its first point (the program, its libraries, MPI) and HDF5's
     * caches are not the run's to spend: the budget is what is left of the rank's share */
    size_t share = node_bytes / (size_t)ranks_on_node, resident = resident_bytes();
    size_t held = storq_bytes_add(resident, HDF5_CACHES);
    unsigned long long mine = share > held ? share - held : 0, least, most_held = resident;
    MPI_Allreduce(&mine, &least, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
    MPI_Allreduce(MPI_IN_PLACE, &most_held, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
    unsigned threads = (unsigned)omp_get_max_threads();
    char full[320];
    snprintf(full, sizeof full, "%s shared by %d rank%s x %u thread%s per node, less the %.0f MB "
             "a rank holds before its points and %.0f MB kept for HDF5; %s", source,
             ranks_on_node, ranks_on_node == 1 ? "" : "s", threads, threads == 1 ? "" : "s",
             (double)most_held / (1 << 20), (double)HDF5_CACHES / (1 << 20),
             limit_text ? "fewer threads or ranks leave more to each"
                        : "--memory-limit sets another budget");
    storq_memory_set_budget((size_t)least, threads, full);
    return STORQ_OK;
}

int storq_memory_budget_local(const char *limit_text, storq_error *err)
{
    char source[160];
    size_t bytes;
    STORQ_TRY(node_budget(limit_text, &bytes, source, sizeof source, err));
    size_t held = resident_bytes();
    char full[320];
    snprintf(full, sizeof full, "%s, less the %.0f MB the program holds before its points",
             source, (double)held / (1 << 20));
    storq_memory_set_budget(bytes > held ? bytes - held : 0, 1, full);
    return STORQ_OK;
}
