/* Point trees (io/point_tree.h): a tree built by hand with every type, its lookups, its record
 * (round trip; every single-byte corruption and every truncation refused; crafted records with a
 * valid checksum refused by what is wrong), storq_pt_equal's differences, a tree written here
 * with the HDF5 C API and read back, objects a point does not hold refused by name, and a real
 * point: /points/000000 of the file test_h5_writer leaves ($STORQ_TEST_H5). */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crc32.h"
#include "h5_util.h"
#include "point_tree.h"

#define OK(call) CHECK((call) == STORQ_OK)

/* ---- a tree by hand ---- */

static storq_pt_node *build_tree(void)
{
    storq_error err = {0};
    storq_pt_node *root = NULL, *obs, *u, *reps, *d;
    OK(storq_pt_new(&root, &err));
    /* scalars of each type, set out of name order */
    OK(storq_pt_set_string(root, "model", "supermarché ✓ Ω", &err));
    OK(storq_pt_set_u64(root, "replications", UINT64_MAX, &err));
    OK(storq_pt_set_i64(root, "n", -42, &err));
    OK(storq_pt_set_f64(root, "lambda", -0.0, &err));
    uint32_t u32 = 4000000000u;
    int32_t i32 = -7;
    OK(storq_pt_set_attr(root, "a_u32", STORQ_PT_U32, 0, 1, &u32, &err));
    OK(storq_pt_set_attr(root, "a_i32", STORQ_PT_I32, 0, 1, &i32, &err));
    OK(storq_pt_set_string(root, "empty", "", &err));
    /* arrays of each type */
    const double f64s[3] = {NAN, INFINITY, 1e-310};
    const uint64_t u64s[3] = {0, 1, UINT64_MAX};
    const int64_t i64s[3] = {INT64_MIN, 0, INT64_MAX};
    const uint32_t u32s[2] = {0, UINT32_MAX};
    const int32_t i32s[2] = {INT32_MIN, INT32_MAX};
    const char *strs[3] = {"naïve", "", "日本語"};
    OK(storq_pt_set_attr(root, "v_f64", STORQ_PT_F64, 1, 3, f64s, &err));
    OK(storq_pt_set_attr(root, "v_u64", STORQ_PT_U64, 1, 3, u64s, &err));
    OK(storq_pt_set_attr(root, "v_i64", STORQ_PT_I64, 1, 3, i64s, &err));
    OK(storq_pt_set_attr(root, "v_u32", STORQ_PT_U32, 1, 2, u32s, &err));
    OK(storq_pt_set_attr(root, "v_i32", STORQ_PT_I32, 1, 2, i32s, &err));
    OK(storq_pt_set_attr(root, "v_str", STORQ_PT_STR, 1, 3, strs, &err));
    OK(storq_pt_set_attr(root, "v_none", STORQ_PT_F64, 1, 0, NULL, &err));

    /* members out of name order: creation order must be kept */
    OK(storq_pt_add_group(root, "observables", &obs, &err));
    OK(storq_pt_add_group(obs, "u", &u, &err));
    OK(storq_pt_set_string(u, "kind", "vector", &err));
    OK(storq_pt_set_string(u, "unit", "", &err));
    const double mean[6] = {1, 0.5, 0.25, 0.125, -1.5, 3};
    const uint64_t dims2[2] = {3, 2}, dims3[3] = {2, 3, 1}, dims1[1] = {6}, dims0[1] = {0};
    OK(storq_pt_add_dataset(u, "mean", STORQ_PT_F64, 1, dims1, mean, &d, &err));
    OK(storq_pt_set_string(d, "note", "ß", &err));
    OK(storq_pt_add_dataset(u, "m2", STORQ_PT_F64, 2, dims2, mean, NULL, &err));
    OK(storq_pt_add_softlink(u, "bin_edges", "/layouts/integer_bins8", &err));
    const int64_t scalar = -123456789012345;
    OK(storq_pt_add_dataset(u, "count", STORQ_PT_I64, 0, NULL, &scalar, &d, &err));
    OK(storq_pt_set_u64(d, "crc32", 99, &err));
    OK(storq_pt_add_group(root, "replications", &reps, &err));
    const uint64_t counts[6] = {5, 4, 3, 2, 1, 0};
    OK(storq_pt_add_dataset(reps, "u", STORQ_PT_U64, 3, dims3, counts, NULL, &err));
    OK(storq_pt_add_dataset(reps, "small", STORQ_PT_U32, 1, dims1, (uint32_t[6]){1, 2, 3}, NULL,
                            &err));
    OK(storq_pt_add_dataset(reps, "signed", STORQ_PT_I32, 2, dims2,
                            (int32_t[6]){-1, 2, -3, 4, -5, 6}, NULL, &err));
    OK(storq_pt_add_dataset(reps, "none", STORQ_PT_F64, 1, dims0, NULL, NULL, &err));
    OK(storq_pt_add_group(root, "theory", NULL, &err)); /* empty */
    OK(storq_pt_add_group(root, "comparison", &d, &err));
    OK(storq_pt_set_u64(d, "crc32", 7, &err));
    CHECK(err.code == STORQ_OK);
    return root;
}

static void check_lookups(storq_pt_node *root)
{
    storq_error err = {0};
    /* attributes in strcmp order, every name once */
    for (size_t i = 1; i < root->nattrs; i++)
        CHECK(strcmp(root->attrs[i - 1].name, root->attrs[i].name) < 0);
    CHECK_EQ_U64(root->nattrs, 14);
    CHECK(strcmp(storq_pt_attr_string(root, "model"), "supermarché ✓ Ω") == 0);
    CHECK(storq_pt_attr_string(root, "n") == NULL);      /* not a string */
    CHECK(storq_pt_attr_string(root, "v_str") == NULL);  /* not a scalar */
    CHECK(storq_pt_attr_string(root, "absent") == NULL);
    const storq_pt_attr *a = storq_pt_attr_find(root, "replications");
    CHECK(a && a->type == STORQ_PT_U64 && a->rank == 0 && *(uint64_t *)a->data == UINT64_MAX);
    /* the same name replaces */
    OK(storq_pt_set_i64(root, "n", 5, &err));
    CHECK_EQ_U64(root->nattrs, 14);
    a = storq_pt_attr_find(root, "n");
    CHECK(a && a->type == STORQ_PT_I64 && *(int64_t *)a->data == 5);
    OK(storq_pt_set_i64(root, "n", -42, &err));

    CHECK_EQ_U64(root->nkids, 4);
    CHECK(strcmp(root->kids[0].name, "observables") == 0);
    CHECK(strcmp(root->kids[3].name, "comparison") == 0);
    const storq_pt_node *mean = storq_pt_find(root, "observables/u/mean");
    CHECK(mean && mean->kind == STORQ_PT_DATASET && mean->rank == 1 && mean->dims[0] == 6);
    CHECK(mean && ((double *)mean->data)[2] == 0.25);
    CHECK(mean && strcmp(storq_pt_attr_string(mean, "note"), "ß") == 0);
    const storq_pt_node *link = storq_pt_find(root, "observables/u/bin_edges");
    CHECK(link && link->kind == STORQ_PT_SOFTLINK &&
          strcmp(link->target, "/layouts/integer_bins8") == 0);
    CHECK(storq_pt_find(root, "observables/u/bin_edges/x") == NULL); /* not followed */
    CHECK(storq_pt_find(root, "observables/u/mean/x") == NULL);
    CHECK(storq_pt_find(root, "observables/v") == NULL);
    CHECK(storq_pt_find(root, "observables/") == NULL);
    CHECK(storq_pt_find(root, "/observables") == NULL);
    CHECK(storq_pt_find(root, "observables//u") == NULL);
    CHECK(storq_pt_find(root, "observ") == NULL);
    CHECK(storq_pt_find(root, "") == root);
    const storq_pt_node *count = storq_pt_find(root, "observables/u/count");
    CHECK(count && count->rank == 0 && storq_pt_count(count) == 1);
    CHECK(storq_pt_count(storq_pt_find(root, "replications/u")) == 6);
    CHECK(storq_pt_count(storq_pt_find(root, "replications/none")) == 0);
    CHECK(storq_pt_count(root) == 0);
    const storq_pt_node *theory = storq_pt_find(root, "theory");
    CHECK(theory && theory->kind == STORQ_PT_GROUP && theory->nkids == 0);
    CHECK(storq_pt_type_size(STORQ_PT_I32) == 4 && storq_pt_type_size(STORQ_PT_U64) == 8);
    /* what a point never holds is refused, not kept */
    storq_pt_node *g = (storq_pt_node *)theory;
    CHECK(storq_pt_add_dataset(g, "s", STORQ_PT_STR, 0, NULL, "x", NULL, &err) ==
          STORQ_ERR_USAGE);
    err = (storq_error){0};
    CHECK(storq_pt_set_attr(g, "s", STORQ_PT_F64, 0, 2, mean->data, &err) == STORQ_ERR_USAGE);
    CHECK(g->nkids == 0 && g->nattrs == 0);
}

/* ---- records ---- */

static storq_pt_node *deserialise(const unsigned char *b, size_t n, storq_error *err)
{
    storq_pt_node *t = (storq_pt_node *)1;
    *err = (storq_error){0};
    int rc = storq_pt_deserialise(b, n, &t, err);
    CHECK((rc == STORQ_OK) == (t != NULL));
    return t;
}

/* The length a record states (bytes 8 to 15). */
static void set_length(unsigned char *b, uint64_t n)
{
    for (int i = 0; i < 8; i++)
        b[8 + i] = (unsigned char)(n >> (8 * i));
}

/* b's length and checksum restated after an edit, so that only the edit is judged. */
static void reseal(unsigned char *b, size_t n)
{
    set_length(b, n);
    uint32_t crc = storq_crc32(0, b, n - 4);
    for (int i = 0; i < 4; i++)
        b[n - 4 + i] = (unsigned char)(crc >> (8 * i));
}

/* A copy of the record rec with its bytes [at, at + cut) replaced by len bytes of with. */
static unsigned char *splice(const unsigned char *rec, size_t n, size_t at, size_t cut,
                             const void *with, size_t len, size_t *out)
{
    *out = n - cut + len;
    unsigned char *b = malloc(*out);
    memcpy(b, rec, at);
    memcpy(b + at, with, len);
    memcpy(b + at + len, rec + at + cut, n - at - cut);
    reseal(b, *out);
    return b;
}

/* Refused as a usage error whose message holds want. */
static void check_refused(const unsigned char *b, size_t n, const char *want)
{
    storq_error err;
    storq_pt_node *t = deserialise(b, n, &err);
    CHECK(t == NULL && err.code == STORQ_ERR_USAGE);
    if (!strstr(err.msg, want)) {
        fprintf(stderr, "wanted '%s', got '%s'\n", want, err.msg);
        CHECK(!"message");
    }
    storq_pt_free(t);
}

static size_t find_bytes(const unsigned char *b, size_t n, const char *s)
{
    size_t len = strlen(s);
    for (size_t i = 0; i + len <= n; i++)
        if (memcmp(b + i, s, len) == 0)
            return i;
    CHECK(!"pattern in record");
    return 0;
}

static void check_records(const storq_pt_node *root)
{
    storq_error err = {0};
    unsigned char *rec = NULL, *again = NULL;
    size_t n = 0, n2 = 0;
    OK(storq_pt_serialise(root, &rec, &n, &err));
    CHECK(n > 100 && memcmp(rec, "SQPT", 4) == 0);
    storq_pt_node *copy = deserialise(rec, n, &err);
    CHECK(copy && storq_pt_equal(root, copy));
    OK(storq_pt_serialise(copy, &again, &n2, &err));
    CHECK(n2 == n && memcmp(rec, again, n) == 0);
    storq_pt_free(copy);
    free(again);

    /* every truncation, every value of every byte: refused, nothing read outside */
    unsigned char *b = malloc(n);
    for (size_t len = 0; len < n; len++) {
        /* a copy of its own size: a read past it is a read out of bounds */
        unsigned char *cut = malloc(len ? len : 1);
        memcpy(cut, rec, len);
        check_refused(cut, len, "cut short");
        free(cut);
    }
    size_t refused = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(b, rec, n);
        for (int v = 0; v < 256; v++) {
            if (v == rec[i])
                continue;
            b[i] = (unsigned char)v;
            storq_pt_node *t = deserialise(b, n, &err);
            refused += t == NULL && err.code == STORQ_ERR_USAGE;
            storq_pt_free(t);
        }
    }
    CHECK_EQ_U64(refused, 255 * n);
    /* The same with the length and checksum restated, so that the tree itself is read
     * altered: a record accepted is one its tree writes again byte for byte (the format has one
     * record a tree), and a prefix of the tree is refused. */
    size_t accepted = 0;
    for (size_t i = 16; i < n - 4; i++) {
        memcpy(b, rec, n);
        for (int v = 0; v < 256; v++) {
            if (v == rec[i])
                continue;
            b[i] = (unsigned char)v;
            reseal(b, n);
            storq_pt_node *t = deserialise(b, n, &err);
            CHECK(t || err.code == STORQ_ERR_USAGE);
            if (t) {
                accepted++;
                OK(storq_pt_serialise(t, &again, &n2, &err));
                CHECK(n2 == n && memcmp(again, b, n) == 0);
                free(again);
            }
            storq_pt_free(t);
        }
    }
    printf("resealed single-byte changes: %zu of %zu accepted as other trees\n", accepted,
           255 * (n - 20));
    for (size_t len = 20; len < n; len++) {
        unsigned char *cut = malloc(len);
        memcpy(cut, rec, len - 4);
        reseal(cut, len);
        check_refused(cut, len, "point record");
        free(cut);
    }
    /* which message: the magic, the version, a value, the checksum itself */
    memcpy(b, rec, n);
    b[0] = 'X';
    check_refused(b, n, "not a point record");
    memcpy(b, rec, n);
    b[4] = 2;
    check_refused(b, n, "version 2");
    memcpy(b, rec, n);
    b[n - 10] ^= 1;
    check_refused(b, n, "checksum does not match");
    memcpy(b, rec, n);
    b[n - 1] ^= 0x80;
    check_refused(b, n, "checksum does not match");
    memcpy(b, rec, n);
    set_length(b, n - 1);
    check_refused(b, n, "states a length of");
    set_length(b, n + 1);
    check_refused(b, n, "cut short");
    free(b);
    b = malloc(n + 1); /* a byte too many */
    memcpy(b, rec, n);
    b[n] = 0;
    check_refused(b, n + 1, "states a length of");
    free(b);

    /* records whose checksum holds, each wrong in one way */
    size_t m;
    unsigned char kind = 9, rank = 5, big[8] = {0, 0, 0, 0, 0, 0, 0, 0x10};
    b = splice(rec, n, 16, 1, &kind, 1, &m);
    check_refused(b, m, "unknown kind (9)");
    free(b);
    kind = STORQ_PT_DATASET;
    b = splice(rec, n, 16, 1, &kind, 1, &m); /* the root as a dataset: read as one, then judged */
    check_refused(b, m, "point record");
    free(b);
    b = splice(rec, n, 21, 8, big, 8, &m); /* the root's attribute count */
    check_refused(b, m, "run past its end");
    free(b);
    b = splice(rec, n, n - 4, 0, "x", 1, &m); /* a byte past the root */
    check_refused(b, m, "tree ends 1 bytes before the record does");
    free(b);
    size_t at = find_bytes(rec, n, "v_u64") - 4; /* "v_u32", "v_u64": now twice "v_u32" */
    b = splice(rec, n, at + 4 + 3, 2, "32", 2, &m);
    check_refused(b, m, "out of order ('v_u32' after 'v_u32')");
    free(b);
    b = splice(rec, n, find_bytes(rec, n, "naïve"), 1, "\0", 1, &m);
    check_refused(b, m, "NUL byte");
    free(b);
    at = find_bytes(rec, n, "mean") + 4; /* name, nattrs and its attribute "note" = "ß" */
    at += 8 + 4 + 4 + 1 + 1 + 8 + 4 + 2; /* its type */
    CHECK(rec[at] == STORQ_PT_F64 && rec[at + 1] == 1);
    b = splice(rec, n, at + 1, 1, &rank, 1, &m);
    check_refused(b, m, "rank 5 (at most 4)");
    free(b);
    b = splice(rec, n, at, 1, "\x06", 1, &m);
    check_refused(b, m, "unknown type (6)");
    free(b);
    free(rec);

    /* nesting deeper than any point */
    storq_pt_node *deep = NULL, *g;
    OK(storq_pt_new(&deep, &err));
    g = deep;
    for (int i = 0; i < 40; i++)
        OK(storq_pt_add_group(g, "g", &g, &err));
    OK(storq_pt_serialise(deep, &rec, &n, &err));
    check_refused(rec, n, "more than 32 deep");
    free(rec);
    storq_pt_free(deep);
}

/* ---- equality ---- */

static storq_pt_node *copy_of(const storq_pt_node *t)
{
    storq_error err = {0};
    unsigned char *rec;
    size_t n;
    storq_pt_node *c = NULL;
    OK(storq_pt_serialise(t, &rec, &n, &err));
    OK(storq_pt_deserialise(rec, n, &c, &err));
    free(rec);
    return c;
}

static void check_equal(const storq_pt_node *root)
{
    storq_error err = {0};
    CHECK(storq_pt_equal(root, root));
    storq_pt_node *c = copy_of(root);
    storq_pt_node *mean = (storq_pt_node *)storq_pt_find(c, "observables/u/mean");
    ((double *)mean->data)[5] = nextafter(3.0, 4.0);
    CHECK(!storq_pt_equal(root, c));
    storq_pt_free(c);

    c = copy_of(root); /* NaN's bits, not its value: the same NaN is equal */
    CHECK(storq_pt_equal(root, c));
    storq_pt_attr *nan = (storq_pt_attr *)storq_pt_attr_find(c, "v_f64");
    uint64_t bits;
    memcpy(&bits, nan->data, 8);
    bits ^= 1;
    memcpy(nan->data, &bits, 8);
    CHECK(!storq_pt_equal(root, c));
    storq_pt_free(c);

    c = copy_of(root);
    OK(storq_pt_set_f64(c, "lambda", 0.0, &err)); /* was -0.0 */
    CHECK(!storq_pt_equal(root, c));
    storq_pt_free(c);

    c = copy_of(root);
    OK(storq_pt_set_string((storq_pt_node *)storq_pt_find(c, "observables/u"), "unit", "s",
                           &err));
    CHECK(!storq_pt_equal(root, c));
    storq_pt_free(c);

    c = copy_of(root);
    OK(storq_pt_set_u64(&c->kids[2], "new", 1, &err));
    CHECK(!storq_pt_equal(root, c));
    storq_pt_free(c);

    c = copy_of(root); /* two members swapped */
    storq_pt_node swap = c->kids[2];
    c->kids[2] = c->kids[3];
    c->kids[3] = swap;
    CHECK(!storq_pt_equal(root, c));
    storq_pt_free(c);

    c = copy_of(root); /* the same values in another shape */
    storq_pt_node *m2 = (storq_pt_node *)storq_pt_find(c, "observables/u/m2");
    m2->dims[0] = 2;
    m2->dims[1] = 3;
    CHECK(!storq_pt_equal(root, c));
    storq_pt_free(c);

    c = copy_of(root);
    storq_pt_node *link = (storq_pt_node *)storq_pt_find(c, "observables/u/bin_edges");
    link->target[1] = 'L';
    CHECK(!storq_pt_equal(root, c));
    storq_pt_free(c);
}

/* ---- HDF5 ---- */

static hid_t file_type(storq_pt_type t)
{
    switch (t) {
    case STORQ_PT_F64:
        return H5T_IEEE_F64LE;
    case STORQ_PT_U64:
        return H5T_STD_U64LE;
    case STORQ_PT_I64:
        return H5T_STD_I64LE;
    case STORQ_PT_U32:
        return H5T_STD_U32LE;
    default:
        return H5T_STD_I32LE;
    }
}

static hid_t mem_type(storq_pt_type t)
{
    switch (t) {
    case STORQ_PT_F64:
        return H5T_NATIVE_DOUBLE;
    case STORQ_PT_U64:
        return H5T_NATIVE_UINT64;
    case STORQ_PT_I64:
        return H5T_NATIVE_INT64;
    case STORQ_PT_U32:
        return H5T_NATIVE_UINT32;
    default:
        return H5T_NATIVE_INT32;
    }
}

static hid_t make_space(int rank, const uint64_t *dims)
{
    hsize_t h[STORQ_PT_RANK_MAX];
    for (int i = 0; i < rank; i++)
        h[i] = dims[i];
    return rank ? H5Screate_simple(rank, h, NULL) : H5Screate(H5S_SCALAR);
}

static void write_attrs(hid_t obj, const storq_pt_node *n)
{
    for (size_t i = 0; i < n->nattrs; i++) {
        const storq_pt_attr *a = &n->attrs[i];
        uint64_t dim = a->n;
        hid_t space = make_space(a->rank, &dim), t = -1;
        if (a->type == STORQ_PT_STR) {
            t = H5Tcopy(H5T_C_S1);
            H5Tset_size(t, H5T_VARIABLE);
            H5Tset_cset(t, H5T_CSET_UTF8);
        }
        hid_t at = H5Acreate2(obj, a->name, t >= 0 ? t : file_type(a->type), space, H5P_DEFAULT,
                              H5P_DEFAULT);
        CHECK(at >= 0 && H5Awrite(at, t >= 0 ? t : mem_type(a->type), a->data) >= 0);
        H5Aclose(at);
        if (t >= 0)
            H5Tclose(t);
        H5Sclose(space);
    }
}

/* g's members as n's, groups tracking their creation order when ordered. */
static void write_members(hid_t g, const storq_pt_node *n, int ordered)
{
    write_attrs(g, n);
    for (size_t i = 0; i < n->nkids; i++) {
        const storq_pt_node *k = &n->kids[i];
        if (k->kind == STORQ_PT_SOFTLINK) {
            CHECK(H5Lcreate_soft(k->target, g, k->name, H5P_DEFAULT, H5P_DEFAULT) >= 0);
        } else if (k->kind == STORQ_PT_GROUP) {
            hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
            if (ordered)
                H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
            hid_t sub = H5Gcreate2(g, k->name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
            CHECK(sub >= 0);
            write_members(sub, k, ordered);
            H5Gclose(sub);
            H5Pclose(gcpl);
        } else {
            hid_t space = make_space(k->rank, k->dims);
            hid_t d = H5Dcreate2(g, k->name, file_type(k->type), space, H5P_DEFAULT, H5P_DEFAULT,
                                 H5P_DEFAULT);
            CHECK(d >= 0);
            if (storq_pt_count(k))
                CHECK(H5Dwrite(d, mem_type(k->type), H5S_ALL, H5S_ALL, H5P_DEFAULT, k->data) >= 0);
            write_attrs(d, k);
            H5Dclose(d);
            H5Sclose(space);
        }
    }
}

static hid_t create_group(hid_t loc, const char *name, int ordered)
{
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    if (ordered)
        H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose(gcpl);
    CHECK(g >= 0);
    return g;
}

/* A fixed-length string attribute of strings of size bytes each (not NUL-terminated). */
static void fixed_attr(hid_t obj, const char *name, size_t size, H5T_str_t pad, int rank,
                       size_t n, const char *bytes)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, size);
    H5Tset_strpad(t, pad);
    hsize_t dim = n;
    hid_t space = rank ? H5Screate_simple(1, &dim, NULL) : H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, space, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, t, bytes) >= 0);
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(t);
}

static void plain_dataset(hid_t g, const char *name, hid_t type, int rank)
{
    hsize_t dims[6] = {1, 1, 1, 1, 1, 1};
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t d = H5Dcreate2(g, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d >= 0);
    H5Dclose(d);
    H5Sclose(space);
}

/* Reading g/name is refused as a usage error naming path (and mentioning want). */
static void check_h5_refused(hid_t file, const char *group, const char *path, const char *want)
{
    storq_error err = {0};
    storq_pt_node *t = (storq_pt_node *)1;
    CHECK(storq_pt_read_h5(file, group, NULL, &t, &err) == STORQ_ERR_USAGE && t == NULL);
    if (!strstr(err.msg, path) || !strstr(err.msg, want)) {
        fprintf(stderr, "wanted '%s' and '%s', got '%s'\n", path, want, err.msg);
        CHECK(!"message");
    }
}

static void check_h5(const storq_pt_node *root)
{
    const char *path = "test_point_tree.h5";
    storq_error err = {0};
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(file >= 0);
    hid_t g = create_group(file, "pt", 1);
    write_members(g, root, 1);
    H5Gclose(g);
    g = create_group(file, "by_name", 0); /* no creation order: read by name */
    write_members(g, root, 0);
    fixed_attr(g, "f_null", 8, H5T_STR_NULLPAD, 0, 1, "hello\0\0\0");
    fixed_attr(g, "f_full", 5, H5T_STR_NULLPAD, 0, 1, "whole");
    fixed_attr(g, "f_space", 6, H5T_STR_SPACEPAD, 0, 1, "pad   ");
    fixed_attr(g, "f_term", 4, H5T_STR_NULLTERM, 1, 3, "ab\0\0abc\0\0\0\0\0");
    H5Gclose(g);
    /* one object a point does not hold in each group of its own */
    const struct {
        const char *group;
        hid_t type;
        int rank;
    } odd[] = {{"odd_i16", H5T_STD_I16LE, 1}, {"odd_f32", H5T_IEEE_F32LE, 1},
               {"odd_rank", H5T_IEEE_F64LE, 5}, {"odd_str", H5T_C_S1, 1}};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        g = create_group(file, odd[i].group, 1);
        hid_t sub = create_group(g, "sub", 1);
        plain_dataset(sub, "x", odd[i].type, odd[i].rank);
        H5Gclose(sub);
        H5Gclose(g);
    }
    g = create_group(file, "odd_attr", 1);
    hsize_t dims2[2] = {2, 2};
    hid_t space = H5Screate_simple(2, dims2, NULL);
    hid_t a = H5Acreate2(g, "grid", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Aclose(a);
    H5Sclose(space);
    H5Gclose(g);
    CHECK(H5Fclose(file) >= 0);

    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(file >= 0);
    storq_pt_node *t = NULL;
    OK(storq_pt_read_h5(file, "/pt", NULL, &t, &err));
    CHECK(t && storq_pt_equal(root, t));
    if (t && !storq_pt_equal(root, t))
        fprintf(stderr, "read back: %s\n", err.msg);
    storq_pt_free(t);
    /* skip: at every depth */
    const char *const skip[] = {"crc32", "v_str", NULL};
    OK(storq_pt_read_h5(file, "pt", skip, &t, &err));
    CHECK(t && !storq_pt_attr_find(t, "v_str") && storq_pt_attr_find(t, "v_u32"));
    CHECK(t && !storq_pt_attr_find(storq_pt_find(t, "comparison"), "crc32"));
    CHECK(t && storq_pt_find(t, "observables/u/count")->nattrs == 0);
    CHECK(t && t->nattrs == root->nattrs - 1);
    storq_pt_free(t);

    OK(storq_pt_read_h5(file, "by_name", NULL, &t, &err));
    CHECK(t && t->nkids == 4 && !storq_pt_equal(root, t));
    const char *order[] = {"comparison", "observables", "replications", "theory"};
    for (size_t i = 0; t && i < 4 && i < t->nkids; i++)
        CHECK(strcmp(t->kids[i].name, order[i]) == 0);
    const storq_pt_node *u = t ? storq_pt_find(t, "observables/u") : NULL;
    CHECK(u && u->nkids == 4 && strcmp(u->kids[0].name, "bin_edges") == 0 &&
          strcmp(u->kids[3].name, "mean") == 0);
    CHECK(t && strcmp(storq_pt_attr_string(t, "f_null"), "hello") == 0);
    CHECK(t && strcmp(storq_pt_attr_string(t, "f_full"), "whole") == 0);
    CHECK(t && strcmp(storq_pt_attr_string(t, "f_space"), "pad") == 0);
    const storq_pt_attr *term = t ? storq_pt_attr_find(t, "f_term") : NULL;
    CHECK(term && term->type == STORQ_PT_STR && term->rank == 1 && term->n == 3);
    if (term && term->n == 3) {
        char **s = term->data;
        CHECK(strcmp(s[0], "ab") == 0 && strcmp(s[1], "abc") == 0 && strcmp(s[2], "") == 0);
    }
    storq_pt_free(t);

    check_h5_refused(file, "odd_i16", "/odd_i16/sub/x", "2-byte integers");
    check_h5_refused(file, "odd_f32", "/odd_f32/sub/x", "4-byte floats");
    check_h5_refused(file, "odd_rank", "/odd_rank/sub/x", "rank 5");
    check_h5_refused(file, "odd_str", "/odd_str/sub/x", "strings");
    check_h5_refused(file, "odd_attr", "/odd_attr", "attribute 'grid' is of rank 2");
    CHECK(storq_pt_read_h5(file, "absent", NULL, &t, &err) == STORQ_ERR_RUNTIME && !t);
    CHECK(H5Fget_obj_count(file, H5F_OBJ_ALL) == 1); /* every read closed what it opened */
    CHECK(H5Fclose(file) >= 0);
    remove(path);
}

/* No attribute named name at any depth. */
static int has_attr_anywhere(const storq_pt_node *n, const char *name)
{
    if (storq_pt_attr_find(n, name))
        return 1;
    for (size_t i = 0; i < n->nkids; i++)
        if (has_attr_anywhere(&n->kids[i], name))
            return 1;
    return 0;
}

/* /points/000000 of a file storq wrote. */
static void check_real_point(const char *path)
{
    storq_error err = {0};
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(file >= 0);
    if (file < 0)
        return;
    storq_pt_node *t = NULL, *bare = NULL;
    OK(storq_pt_read_h5(file, "/points/000000", NULL, &t, &err));
    const char *const skip[] = {"crc32", NULL};
    OK(storq_pt_read_h5(file, "/points/000000", skip, &bare, &err));
    if (err.code)
        fprintf(stderr, "%s\n", err.msg);
    if (!t || !bare) {
        CHECK(!"point read");
        H5Fclose(file);
        return;
    }
    const char *groups[] = {"observables", "replications", "theory", "comparison"};
    CHECK_EQ_U64(t->nkids, 4);
    for (size_t i = 0; i < 4 && i < t->nkids; i++)
        CHECK(t->kids[i].kind == STORQ_PT_GROUP && strcmp(t->kids[i].name, groups[i]) == 0);
    CHECK(strcmp(storq_pt_attr_string(t, "status"), "complete") == 0);
    CHECK(storq_pt_attr_string(t, "model") != NULL);
    CHECK(storq_pt_attr_find(t, "crc32") && has_attr_anywhere(storq_pt_find(t, "observables"),
                                                               "crc32"));
    CHECK(!has_attr_anywhere(bare, "crc32"));
    CHECK(bare->nattrs == t->nattrs - 1 && storq_pt_attr_find(bare, "status"));
    /* a soft link kept as one (histograms' bin_edges, 1.3), values as HDF5 gives them */
    const storq_pt_node *obs = storq_pt_find(t, "observables");
    size_t links = 0;
    for (size_t i = 0; obs && i < obs->nkids; i++) {
        const storq_pt_node *e = storq_pt_find(&obs->kids[i], "bin_edges");
        if (e) {
            links++;
            CHECK(e->kind == STORQ_PT_SOFTLINK && strncmp(e->target, "/layouts/", 9) == 0);
        }
    }
    printf("%s: /points/000000 has %zu attributes, %zu observables, %zu soft links\n", path,
           t->nattrs, obs ? obs->nkids : 0, links);
    const storq_pt_node *reps = storq_pt_find(t, "replications");
    CHECK(reps && reps->nkids > 0);
    hid_t g = H5Gopen2(file, "/points/000000/replications", H5P_DEFAULT);
    for (size_t i = 0; reps && i < reps->nkids; i++) {
        const storq_pt_node *d = &reps->kids[i];
        double *v = NULL;
        size_t n = 0;
        OK(storq_h5u_read_f64(g, d->name, &v, &n, &err));
        CHECK(d->type == STORQ_PT_F64 && n == storq_pt_count(d) &&
              memcmp(v, d->data, n * sizeof *v) == 0);
        free(v);
    }
    H5Gclose(g);
    storq_pt_node *c = copy_of(t);
    CHECK(c && storq_pt_equal(t, c));
    storq_pt_free(c);
    storq_pt_free(t);
    storq_pt_free(bare);
    CHECK(H5Fget_obj_count(file, H5F_OBJ_ALL) == 1);
    CHECK(H5Fclose(file) >= 0);
}

int main(void)
{
    storq_h5u_quiet();
    storq_pt_node *root = build_tree();
    check_lookups(root);
    check_records(root);
    check_equal(root);
    check_h5(root);
    storq_pt_free(root);
    const char *real = getenv("STORQ_TEST_H5");
    if (real && *real)
        check_real_point(real);
    else
        printf("STORQ_TEST_H5 not set: no real point read\n");
    return check_report("test_point_tree");
}
