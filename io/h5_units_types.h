/* The record tables' rows and HDF5 compound types (io/h5_units.c writes them): /run/units,
 * /run/ranks and /run/sessions, each row as stored, little-endian and packed in field order. */
#ifndef STORQ_H5_UNITS_TYPES_H
#define STORQ_H5_UNITS_TYPES_H

#include <hdf5.h>
#include <stdint.h>

#include "h5_units.h"

/* A row as stored: the driver's row and the session the file gives it. */
typedef struct unit_record {
    uint32_t session;
    storq_unit_row row;
} unit_record;

typedef struct rank_record {
    uint32_t session;
    storq_rank_time time;
} rank_record;

typedef struct session_record {
    uint32_t session;
    int64_t workers;
    uint64_t units;
    double wall, busy, efficiency;
    double unit, waiting, idle, serving; /* added with cpu_seconds */
} session_record;

/* A table's file and memory compound types. */
typedef struct table_type {
    hid_t ftype, mtype;
} table_type;

void storq_units_table_type_free(table_type *t);
/* Each returns -1 when HDF5 cannot build the type (t is then freed). */
int storq_units_units_type(table_type *t);
int storq_units_ranks_type(table_type *t);
int storq_units_sessions_type(table_type *t);

#endif
