/* The record tables' compound types (h5_units_types.h). */
#include "h5_units_types.h"

#include <stddef.h>

#include "h5_util.h"
#include "schema.h"

/* One field: its name, file type (little-endian, packed in field order), memory type and offset. */
typedef struct field {
    const char *name;
    hid_t ftype, mtype;
    size_t offset;
} field;

void storq_units_table_type_free(table_type *t)
{
    storq_h5u_close_type(&t->ftype);
    storq_h5u_close_type(&t->mtype);
}

static int build_type(const field *fields, size_t n, size_t msize, table_type *t)
{
    size_t fsize = 0;
    for (size_t i = 0; i < n; i++)
        fsize += H5Tget_size(fields[i].ftype);
    t->ftype = H5Tcreate(H5T_COMPOUND, fsize);
    t->mtype = H5Tcreate(H5T_COMPOUND, msize);
    int bad = t->ftype < 0 || t->mtype < 0;
    size_t offset = 0;
    for (size_t i = 0; i < n && !bad; i++) {
        bad = H5Tinsert(t->ftype, fields[i].name, offset, fields[i].ftype) < 0 ||
              H5Tinsert(t->mtype, fields[i].name, fields[i].offset, fields[i].mtype) < 0;
        offset += H5Tget_size(fields[i].ftype);
    }
    if (bad)
        storq_units_table_type_free(t);
    return bad ? -1 : 0;
}

/* The H5T_* names are run-time values, so the field lists are built in functions. */
int storq_units_units_type(table_type *t)
{
    const field f[] = {
        {STORQ_SCHEMA_UNIT_SESSION, H5T_STD_U32LE, H5T_NATIVE_UINT32,
         offsetof(unit_record, session)},
        {STORQ_SCHEMA_UNIT_POINT, H5T_STD_U64LE, H5T_NATIVE_UINT64,
         offsetof(unit_record, row.point)},
        {STORQ_SCHEMA_UNIT_REP, H5T_STD_I64LE, H5T_NATIVE_INT64, offsetof(unit_record, row.rep)},
        {STORQ_SCHEMA_UNIT_RANK, H5T_STD_I32LE, H5T_NATIVE_INT32,
         offsetof(unit_record, row.rank)},
        {STORQ_SCHEMA_UNIT_THREAD, H5T_STD_I32LE, H5T_NATIVE_INT32,
         offsetof(unit_record, row.thread)},
        {STORQ_SCHEMA_UNIT_START, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(unit_record, row.start)},
        {STORQ_SCHEMA_UNIT_END, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(unit_record, row.end)},
        {STORQ_SCHEMA_UNIT_EVENTS, H5T_STD_U64LE, H5T_NATIVE_UINT64,
         offsetof(unit_record, row.events)},
        {STORQ_SCHEMA_UNIT_COST, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(unit_record, row.cost)},
        {STORQ_SCHEMA_UNIT_CPU, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(unit_record, row.cpu)},
    };
    return build_type(f, sizeof f / sizeof *f, sizeof(unit_record), t);
}

int storq_units_ranks_type(table_type *t)
{
    const field f[] = {
        {STORQ_SCHEMA_UNIT_SESSION, H5T_STD_U32LE, H5T_NATIVE_UINT32,
         offsetof(rank_record, session)},
        {STORQ_SCHEMA_UNIT_RANK, H5T_STD_I32LE, H5T_NATIVE_INT32, offsetof(rank_record, time.rank)},
        {STORQ_SCHEMA_RANK_THREADS, H5T_STD_I32LE, H5T_NATIVE_INT32,
         offsetof(rank_record, time.threads)},
        {STORQ_SCHEMA_RANK_SIMULATING, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(rank_record, time.simulating)},
        {STORQ_SCHEMA_RANK_IN_UNITS, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(rank_record, time.in_units)},
        {STORQ_SCHEMA_ATTR_WAITING_SECONDS, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(rank_record, time.waiting)},
        {STORQ_SCHEMA_ATTR_IDLE_SECONDS, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(rank_record, time.idle)},
        {STORQ_SCHEMA_ATTR_SERVING_SECONDS, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(rank_record, time.serving)},
    };
    return build_type(f, sizeof f / sizeof *f, sizeof(rank_record), t);
}

int storq_units_sessions_type(table_type *t)
{
    const field f[] = {
        {STORQ_SCHEMA_UNIT_SESSION, H5T_STD_U32LE, H5T_NATIVE_UINT32,
         offsetof(session_record, session)},
        {STORQ_SCHEMA_ATTR_WORKERS, H5T_STD_I64LE, H5T_NATIVE_INT64,
         offsetof(session_record, workers)},
        {STORQ_SCHEMA_SESSION_UNITS, H5T_STD_U64LE, H5T_NATIVE_UINT64,
         offsetof(session_record, units)},
        {STORQ_SCHEMA_ATTR_WALL_SECONDS, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(session_record, wall)},
        {STORQ_SCHEMA_ATTR_BUSY_SECONDS, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(session_record, busy)},
        {STORQ_SCHEMA_ATTR_EFFICIENCY, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(session_record, efficiency)},
        {STORQ_SCHEMA_ATTR_UNIT_SECONDS, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(session_record, unit)},
        {STORQ_SCHEMA_ATTR_WAITING_SECONDS, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(session_record, waiting)},
        {STORQ_SCHEMA_ATTR_IDLE_SECONDS, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(session_record, idle)},
        {STORQ_SCHEMA_ATTR_SERVING_SECONDS, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
         offsetof(session_record, serving)},
    };
    return build_type(f, sizeof f / sizeof *f, sizeof(session_record), t);
}
