/* storq_pt_write_h5 (io/point_tree_write.c): a point tree written as a 1.x point group.
 *   - a tree built by hand with every type, rank and shape a tree holds (empty ones, compressed
 *     ones), written under /points by link name and by path, read back equal, every group and
 *     dataset with its checksum, which storq's own checker accepts;
 *   - the points of the file test_h5_writer leaves ($STORQ_TEST_H5), read as trees without their
 *     checksums and written into a new file with that file's header (root attributes, /run,
 *     /layouts, /points/index copied): every object as the 1.x writer made it (the same
 *     checksums, types, shapes, creation properties), and `storq info` ($STORQ_BIN) of the new
 *     file, which checks every checksum, prints what it prints of the original; the file is left
 *     for the schema checker (point_tree_write_schema_python);
 *   - trees a point cannot be refused as usage errors naming the object, writing nothing; HDF5's
 *     failures (a read-only file, a parent in another file) link nothing; every id closed. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "h5_checksum.h"
#include "h5_util.h"
#include "point_tree.h"

#define OK(call) CHECK((call) == STORQ_OK)

static const char *const no_crc[] = {"crc32", NULL};

/* ---- a tree by hand ---- */

static storq_pt_node *build_tree(void)
{
    storq_error err = {0};
    storq_pt_node *root = NULL, *obs, *u, *reps, *d, *g;
    OK(storq_pt_new(&root, &err));
    OK(storq_pt_set_string(root, "model", "supermarché ✓ Ω", &err));
    OK(storq_pt_set_u64(root, "replications", UINT64_MAX, &err));
    OK(storq_pt_set_i64(root, "n", -42, &err));
    OK(storq_pt_set_f64(root, "lambda", -0.0, &err));
    OK(storq_pt_set_string(root, "status", "complete", &err));
    uint32_t u32 = 4000000000u;
    int32_t i32 = -7;
    OK(storq_pt_set_attr(root, "a_u32", STORQ_PT_U32, 0, 1, &u32, &err));
    OK(storq_pt_set_attr(root, "a_i32", STORQ_PT_I32, 0, 1, &i32, &err));
    OK(storq_pt_set_string(root, "empty", "", &err));
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
    OK(storq_pt_set_attr(root, "v_str1", STORQ_PT_STR, 1, 1, strs, &err)); /* 1-D of one */
    OK(storq_pt_set_attr(root, "v_f64_1", STORQ_PT_F64, 1, 1, f64s + 2, &err));
    OK(storq_pt_set_attr(root, "v_none", STORQ_PT_F64, 1, 0, NULL, &err));
    OK(storq_pt_set_attr(root, "v_none_str", STORQ_PT_STR, 1, 0, NULL, &err));

    /* members out of name order: their creation order is kept */
    OK(storq_pt_add_group(root, "observables", &obs, &err));
    OK(storq_pt_add_group(obs, "u", &u, &err));
    OK(storq_pt_set_string(u, "kind", "vector", &err));
    OK(storq_pt_set_string(u, "unit", "", &err));
    const double mean[6] = {1, 0.5, 0.25, 0.125, -1.5, 3};
    const uint64_t dims2[2] = {3, 2}, dims3[3] = {2, 3, 1}, dims1[1] = {6}, dims0[1] = {0};
    const uint64_t dims4[4] = {2, 1, 3, 1}, dims4e[4] = {2, 0, 3, 1};
    OK(storq_pt_add_dataset(u, "mean", STORQ_PT_F64, 1, dims1, mean, &d, &err));
    OK(storq_pt_set_string(d, "note", "ß", &err));
    OK(storq_pt_set_attr(d, "v_i32", STORQ_PT_I32, 1, 2, i32s, &err));
    OK(storq_pt_add_dataset(u, "m2", STORQ_PT_F64, 2, dims2, mean, NULL, &err));
    OK(storq_pt_add_softlink(u, "bin_edges", "/layouts/integer_bins8", &err));
    const int64_t scalar = -123456789012345;
    OK(storq_pt_add_dataset(u, "count", STORQ_PT_I64, 0, NULL, &scalar, &d, &err));
    OK(storq_pt_set_u64(d, "n", 99, &err));
    OK(storq_pt_add_dataset(u, "m4", STORQ_PT_F64, 4, dims4, mean, NULL, &err));
    OK(storq_pt_add_softlink(u, "alias", "count", &err)); /* relative, as it is */
    OK(storq_pt_add_group(root, "replications", &reps, &err));
    const uint64_t counts[6] = {5, 4, 3, 2, 1, 0};
    OK(storq_pt_add_dataset(reps, "u", STORQ_PT_U64, 3, dims3, counts, NULL, &err));
    OK(storq_pt_add_dataset(reps, "small", STORQ_PT_U32, 1, dims1, (uint32_t[6]){1, 2, 3}, NULL,
                            &err));
    OK(storq_pt_add_dataset(reps, "signed", STORQ_PT_I32, 2, dims2,
                            (int32_t[6]){-1, 2, -3, 4, -5, 6}, NULL, &err));
    OK(storq_pt_add_dataset(reps, "none", STORQ_PT_F64, 1, dims0, NULL, NULL, &err));
    OK(storq_pt_add_dataset(reps, "none4", STORQ_PT_U64, 4, dims4e, NULL, NULL, &err));
    uint32_t one_u32 = 17;
    int32_t one_i32 = -17;
    uint64_t one_u64 = 1ull << 63;
    OK(storq_pt_add_dataset(reps, "s_u32", STORQ_PT_U32, 0, NULL, &one_u32, NULL, &err));
    OK(storq_pt_add_dataset(reps, "s_i32", STORQ_PT_I32, 0, NULL, &one_i32, NULL, &err));
    OK(storq_pt_add_dataset(reps, "s_u64", STORQ_PT_U64, 0, NULL, &one_u64, NULL, &err));
    /* large enough to be chunked and deflated (STORQ_H5U_COMPRESS_MIN) */
    double big[500];
    int32_t bigi[700];
    for (size_t i = 0; i < 500; i++)
        big[i] = sin((double)i) * 1e3;
    for (size_t i = 0; i < 700; i++)
        bigi[i] = (int32_t)(i * 7919 % 1001) - 500;
    const uint64_t dbig[2] = {250, 2}, dbigi[1] = {700};
    OK(storq_pt_add_dataset(reps, "big", STORQ_PT_F64, 2, dbig, big, NULL, &err));
    OK(storq_pt_add_dataset(reps, "bigi", STORQ_PT_I32, 1, dbigi, bigi, NULL, &err));
    OK(storq_pt_add_group(root, "theory", NULL, &err)); /* empty */
    OK(storq_pt_add_group(root, "comparison", &g, &err));
    OK(storq_pt_set_u64(g, "k", 7, &err));
    OK(storq_pt_add_group(g, "deeper", &g, &err));
    OK(storq_pt_add_group(g, "still", &g, &err));
    OK(storq_pt_add_dataset(g, "x", STORQ_PT_F64, 0, NULL, mean, NULL, &err));
    CHECK(err.code == STORQ_OK);
    return root;
}

static storq_pt_node *copy_of(const storq_pt_node *t)
{
    storq_error err = {0};
    unsigned char *rec = NULL;
    size_t n = 0;
    storq_pt_node *c = NULL;
    OK(storq_pt_serialise(t, &rec, &n, &err));
    OK(storq_pt_deserialise(rec, n, &c, &err));
    free(rec);
    return c;
}

/* A file as storq makes its own (h5_util.h's properties). */
static hid_t create_file(const char *path)
{
    hid_t fapl = storq_h5u_file_access(), fcpl = storq_h5u_file_create();
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
    H5Pclose(fapl);
    H5Pclose(fcpl);
    CHECK(f >= 0);
    return f;
}

static hid_t open_file(const char *path, unsigned flags)
{
    hid_t fapl = storq_h5u_file_access();
    hid_t f = H5Fopen(path, flags, fapl);
    H5Pclose(fapl);
    CHECK(f >= 0);
    return f;
}

/* Every group and dataset of t (read with its checksums) has one: a 32-bit crc32. */
static size_t check_stamped(const storq_pt_node *t)
{
    if (t->kind == STORQ_PT_SOFTLINK)
        return 0;
    const storq_pt_attr *a = storq_pt_attr_find(t, "crc32");
    CHECK(a && a->type == STORQ_PT_U32 && a->rank == 0);
    if (!a)
        fprintf(stderr, "no crc32 on '%s'\n", t->name);
    size_t n = 1;
    for (size_t i = 0; i < t->nkids; i++)
        n += check_stamped(&t->kids[i]);
    return n;
}

/* g read back: equal to want without its checksums, every object with one, which
 * storq_h5_checksum_verify accepts. */
static void check_written(hid_t file, const char *path, const storq_pt_node *want)
{
    storq_error err = {0};
    storq_pt_node *t = NULL, *bare = NULL;
    OK(storq_pt_read_h5(file, path, no_crc, &bare, &err));
    CHECK(bare && storq_pt_equal(want, bare));
    OK(storq_pt_read_h5(file, path, NULL, &t, &err));
    size_t stamped = t ? check_stamped(t) : 0;
    hid_t g = H5Gopen2(file, path, H5P_DEFAULT);
    int checked = 0;
    OK(storq_h5_checksum_verify(g, NULL, path, &checked, &err));
    CHECK(checked == 1);
    if (err.code)
        fprintf(stderr, "%s\n", err.msg);
    H5Gclose(g);
    printf("%s: read back equal, %zu objects with their checksums, verified\n", path, stamped);
    storq_pt_free(t);
    storq_pt_free(bare);
}

static void check_by_hand(const storq_pt_node *root)
{
    const char *path = "test_point_tree_write_hand.h5";
    storq_error err = {0};
    hid_t file = create_file(path);
    hid_t points = -1, layouts = -1;
    OK(storq_h5u_create_group(file, "points", &points, &err));
    OK(storq_h5u_create_group(file, "layouts", &layouts, &err));
    hsize_t ne = 9;
    double edges[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    OK(storq_h5u_write_f64(layouts, "integer_bins8", 1, &ne, edges, &err));
    hid_t d = H5Dopen2(layouts, "integer_bins8", H5P_DEFAULT);
    OK(storq_h5_checksum_stamp_object(d, &err)); /* as storq's: the checker follows the link */
    H5Dclose(d);
    H5Gclose(layouts);
    OK(storq_pt_write_h5(file, points, "000000", root, &err));
    OK(storq_pt_write_h5(file, file, "/points/000001", root, &err)); /* by path */
    OK(storq_pt_write_h5(file, points, "000002", root, &err));
    if (err.code)
        fprintf(stderr, "%s\n", err.msg);
    /* links in the order written */
    char **names = NULL;
    size_t n = 0;
    OK(storq_h5u_list_links(points, &names, &n, &err));
    CHECK(n == 3 && strcmp(names[0], "000000") == 0 && strcmp(names[2], "000002") == 0);
    storq_h5u_free_names(names, n);
    H5Gclose(points);
    CHECK(H5Fget_obj_count(file, H5F_OBJ_ALL) == 1); /* every id closed */
    CHECK(H5Fclose(file) >= 0);

    file = open_file(path, H5F_ACC_RDONLY);
    check_written(file, "/points/000000", root);
    check_written(file, "/points/000001", root);
    /* the soft link followed where it leads (the checker follows it too) */
    d = H5Dopen2(file, "/points/000002/observables/u/bin_edges", H5P_DEFAULT);
    CHECK(d >= 0);
    if (d >= 0)
        H5Dclose(d);
    /* the large arrays chunked and deflated, the small ones not (h5_util.h's properties) */
    const char *chunked[] = {"/points/000000/replications/big", "/points/000000/replications/bigi",
                             "/points/000000/observables/u/m4", "/points/000000/replications/u"};
    for (size_t i = 0; i < 4; i++) {
        d = H5Dopen2(file, chunked[i], H5P_DEFAULT);
        hid_t dcpl = H5Dget_create_plist(d);
        int big = i < 2;
        CHECK((H5Pget_layout(dcpl) == H5D_CHUNKED) == big);
        CHECK((H5Pget_nfilters(dcpl) == 2) == big);
        H5Pclose(dcpl);
        H5Dclose(d);
    }
    CHECK(H5Fget_obj_count(file, H5F_OBJ_ALL) == 1);
    CHECK(H5Fclose(file) >= 0);
    remove(path);
}

/* ---- the real points, in a whole file ---- */

/* The two objects (of the fixture and of the new file) made alike: types, shapes and, for
 * datasets, creation properties, and every attribute of the same type. */
static void check_same_object(hid_t a, hid_t b, const char *path)
{
    int bad = 0;
    if (H5Iget_type(a) != H5Iget_type(b)) {
        CHECK(!"the same kind of object");
        return;
    }
    if (H5Iget_type(a) == H5I_DATASET) {
        hid_t ta = H5Dget_type(a), tb = H5Dget_type(b);
        hid_t sa = H5Dget_space(a), sb = H5Dget_space(b);
        hid_t pa = H5Dget_create_plist(a), pb = H5Dget_create_plist(b);
        bad |= H5Tequal(ta, tb) <= 0 || H5Sextent_equal(sa, sb) <= 0;
        bad |= H5Pget_layout(pa) != H5Pget_layout(pb) || H5Pget_nfilters(pa) != H5Pget_nfilters(pb);
        if (H5Pget_layout(pa) == H5D_CHUNKED) {
            hsize_t ca[8] = {0}, cb[8] = {0};
            bad |= H5Pget_chunk(pa, 8, ca) != H5Pget_chunk(pb, 8, cb) || memcmp(ca, cb, sizeof ca);
        }
        for (int i = 0; i < H5Pget_nfilters(pa) && i < H5Pget_nfilters(pb); i++) {
            unsigned fl;
            size_t na = 8, nb = 8;
            unsigned va[8] = {0}, vb[8] = {0};
            H5Z_filter_t fa = H5Pget_filter2(pa, (unsigned)i, &fl, &na, va, 0, NULL, NULL);
            H5Z_filter_t fb = H5Pget_filter2(pb, (unsigned)i, &fl, &nb, vb, 0, NULL, NULL);
            bad |= fa != fb || na != nb || memcmp(va, vb, sizeof va);
        }
        H5Tclose(ta);
        H5Tclose(tb);
        H5Sclose(sa);
        H5Sclose(sb);
        H5Pclose(pa);
        H5Pclose(pb);
    }
    char **names = NULL;
    CHECK(storq_h5u_attr_names(a, &names) == 0);
    for (size_t i = 0; names && names[i]; i++) {
        hid_t aa = H5Aopen(a, names[i], H5P_DEFAULT), ab = H5Aopen(b, names[i], H5P_DEFAULT);
        hid_t ta = H5Aget_type(aa), tb = H5Aget_type(ab);
        hid_t sa = H5Aget_space(aa), sb = H5Aget_space(ab);
        if (ab < 0 || H5Tequal(ta, tb) <= 0 || H5Sextent_equal(sa, sb) <= 0) {
            fprintf(stderr, "%s: attribute '%s' not of the same type and shape\n", path, names[i]);
            bad = 1;
        }
        H5Tclose(ta);
        H5Tclose(tb);
        H5Sclose(sa);
        H5Sclose(sb);
        H5Aclose(aa);
        if (ab >= 0)
            H5Aclose(ab);
        free(names[i]);
    }
    free(names);
    H5Eclear2(H5E_DEFAULT);
    if (bad)
        fprintf(stderr, "%s: not made as the 1.x writer made it\n", path);
    CHECK(!bad);
}

/* Every object below the point group path (tree t tells which) made alike in both files. */
static size_t check_same_objects(hid_t fa, hid_t fb, const storq_pt_node *t, char *path,
                                 size_t size)
{
    if (t->kind == STORQ_PT_SOFTLINK)
        return 0;
    hid_t a = H5Oopen(fa, path, H5P_DEFAULT), b = H5Oopen(fb, path, H5P_DEFAULT);
    CHECK(a >= 0 && b >= 0);
    size_t n = 0;
    if (a >= 0 && b >= 0) {
        check_same_object(a, b, path);
        n++;
    }
    if (a >= 0)
        H5Oclose(a);
    if (b >= 0)
        H5Oclose(b);
    size_t len = strlen(path);
    for (size_t i = 0; i < t->nkids; i++) {
        snprintf(path + len, size - len, "/%s", t->kids[i].name);
        n += check_same_objects(fa, fb, &t->kids[i], path, size);
        path[len] = '\0';
    }
    return n;
}

/* out: the fixture's header (root attributes, /run, /layouts, /points/index), as storq merge
 * copies it, and a /points for the points. */
static hid_t copy_header(hid_t src, hid_t out)
{
    storq_error err = {0};
    char **names = NULL;
    CHECK(storq_h5u_attr_names(src, &names) == 0);
    for (size_t i = 0; names && names[i]; i++) {
        CHECK(storq_h5u_copy_attr(src, names[i], out) == 0);
        free(names[i]);
    }
    free(names);
    CHECK(H5Ocopy(src, "run", out, "run", H5P_DEFAULT, H5P_DEFAULT) >= 0);
    CHECK(H5Ocopy(src, "layouts", out, "layouts", H5P_DEFAULT, H5P_DEFAULT) >= 0);
    hid_t points = -1;
    OK(storq_h5u_create_group(out, "points", &points, &err));
    CHECK(H5Ocopy(src, "/points/index", points, "index", H5P_DEFAULT, H5P_DEFAULT) >= 0);
    return points;
}

/* The text `storq info path` prints (exit status in *status), its first line (the file's name)
 * left out. */
static char *info_of(const char *storq, const char *path, int *status)
{
    char cmd[2048], out[600];
    snprintf(out, sizeof out, "%s.info.txt", path);
    snprintf(cmd, sizeof cmd, "'%s' info '%s' > '%s' 2>&1", storq, path, out);
    *status = system(cmd);
    FILE *f = fopen(out, "rb");
    CHECK(f != NULL);
    if (!f)
        return strdup("");
    char *text = calloc(1, 1 << 20);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    text[n] = '\0';
    fclose(f);
    remove(out);
    char *nl = strchr(text, '\n');
    if (!nl || !strstr(text, ": storq results file\n")) {
        fprintf(stderr, "storq info %s:\n%s\n", path, text);
        CHECK(!"storq info's header");
        return text;
    }
    memmove(text, nl + 1, strlen(nl + 1) + 1);
    return text;
}

static void check_real_points(const char *fixture, const char *storq)
{
    const char *path = "test_point_tree_write.h5"; /* left for the schema checker */
    storq_error err = {0};
    hid_t src = open_file(fixture, H5F_ACC_RDONLY);
    if (src < 0)
        return;
    hid_t out = create_file(path);
    hid_t points = copy_header(src, out);
    char **names = NULL;
    size_t n = 0, npoints = 0;
    hid_t sp = H5Gopen2(src, "points", H5P_DEFAULT);
    OK(storq_h5u_list_links(sp, &names, &n, &err));
    H5Gclose(sp);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(names[i], "index") == 0)
            continue;
        char p[64];
        snprintf(p, sizeof p, "/points/%s", names[i]);
        storq_pt_node *t = NULL;
        OK(storq_pt_read_h5(src, p, no_crc, &t, &err));
        OK(storq_pt_write_h5(out, points, names[i], t, &err));
        if (err.code)
            fprintf(stderr, "%s\n", err.msg);
        storq_pt_free(t);
        npoints++;
    }
    CHECK(npoints >= 3);
    H5Gclose(points);
    CHECK(H5Fget_obj_count(out, H5F_OBJ_ALL) == 1);
    CHECK(H5Fclose(out) >= 0);

    /* each point as the 1.x writer made it: the same tree, checksums included (so the same
     * checksums), every object of the same types, shapes and creation properties */
    out = open_file(path, H5F_ACC_RDONLY);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(names[i], "index") == 0)
            continue;
        char p[1024];
        snprintf(p, sizeof p, "/points/%s", names[i]);
        storq_pt_node *a = NULL, *b = NULL, *bare = NULL;
        OK(storq_pt_read_h5(src, p, NULL, &a, &err));
        OK(storq_pt_read_h5(out, p, NULL, &b, &err));
        OK(storq_pt_read_h5(src, p, no_crc, &bare, &err));
        CHECK(a && b && storq_pt_equal(a, b));
        check_written(out, p, bare);
        size_t objects = a ? check_same_objects(src, out, a, p, sizeof p) : 0;
        printf("%s: the same checksums as %s's, %zu objects made alike\n", p, fixture, objects);
        storq_pt_free(a);
        storq_pt_free(b);
        storq_pt_free(bare);
    }
    storq_h5u_free_names(names, n);
    CHECK(H5Fget_obj_count(out, H5F_OBJ_ALL) == 1);
    CHECK(H5Fclose(out) >= 0);
    CHECK(H5Fclose(src) >= 0);

    /* storq info checks the whole file, every checksum, and prints the same tables */
    if (!storq || !*storq) {
        printf("STORQ_BIN not set: storq info not run\n");
        return;
    }
    int sa = -1, sb = -1;
    char *a = info_of(storq, fixture, &sa), *b = info_of(storq, path, &sb);
    CHECK(sa == 0 && sb == 0);
    CHECK(strlen(a) > 200 && strcmp(a, b) == 0);
    if (sb != 0 || strcmp(a, b) != 0)
        fprintf(stderr, "storq info of %s (status %d):\n%s\nof %s (status %d):\n%s\n", fixture,
                sa, a, path, sb, b);
    else
        printf("storq info: %s and %s print the same %zu bytes\n", fixture, path, strlen(a));
    free(a);
    free(b);
}

/* ---- refusals and failures ---- */

static storq_pt_node *node_at(storq_pt_node *t, const char *path)
{
    storq_pt_node *n = (storq_pt_node *)storq_pt_find(t, path);
    CHECK(n != NULL);
    return n;
}

static storq_pt_attr *attr_at(storq_pt_node *n, const char *name)
{
    storq_pt_attr *a = (storq_pt_attr *)storq_pt_attr_find(n, name);
    CHECK(a != NULL);
    return a;
}

/* Writing t as points/name is refused (code) with a message holding object and want; nothing
 * is linked, every id closed. */
static void check_refused(hid_t file, hid_t points, const char *name, const storq_pt_node *t,
                          int code, const char *object, const char *want)
{
    storq_error err = {0};
    ssize_t open_before = H5Fget_obj_count(file, H5F_OBJ_ALL);
    int exists = storq_h5u_has_link(points, name);
    int rc = storq_pt_write_h5(file, points, name, t, &err);
    CHECK(rc == code && err.code == code);
    if (!strstr(err.msg, object) || !strstr(err.msg, want)) {
        fprintf(stderr, "wanted '%s' and '%s', got '%s'\n", object, want, err.msg);
        CHECK(!"message");
    }
    CHECK(storq_h5u_has_link(points, name) == exists);
    CHECK(H5Fget_obj_count(file, H5F_OBJ_ALL) == open_before);
    printf("refused: %s\n", err.msg);
}

static void check_refusals(const storq_pt_node *root)
{
    const char *path = "test_point_tree_write_bad.h5";
    storq_error err = {0};
    hid_t file = create_file(path);
    hid_t points = -1;
    OK(storq_h5u_create_group(file, "points", &points, &err));
    storq_pt_node *t;
    const int U = STORQ_ERR_USAGE;

    t = copy_of(root);
    node_at(t, "observables/u/m2")->rank = 5;
    check_refused(file, points, "000009", t, U, "'/points/000009/observables/u/m2'", "rank 5");
    storq_pt_free(t);

    t = copy_of(root); /* values missing: NULL data of 6 values */
    storq_pt_node *d = node_at(t, "replications/small");
    free(d->data);
    d->data = NULL;
    check_refused(file, points, "000009", t, U, "/points/000009/replications/small",
                  "6 values and no data");
    storq_pt_free(t);

    t = copy_of(root);
    node_at(t, "replications/signed")->type = STORQ_PT_STR;
    check_refused(file, points, "000009", t, U, "/replications/signed", "a dataset of type 6");
    storq_pt_free(t);

    t = copy_of(root); /* a checksum of its own */
    OK(storq_pt_set_u64(node_at(t, "comparison/deeper/still"), "crc32", 99, &err));
    check_refused(file, points, "000009", t, U, "/points/000009/comparison/deeper/still",
                  "attribute 'crc32' is the checksum");
    storq_pt_free(t);

    t = copy_of(root); /* a scalar of two values */
    attr_at(t, "lambda")->n = 2;
    check_refused(file, points, "000009", t, U, "object '/points/000009'",
                  "attribute 'lambda': type 1 of rank 0 with 2 values");
    storq_pt_free(t);

    t = copy_of(root);
    char **s = attr_at(t, "v_str")->data;
    free(s[1]);
    s[1] = NULL;
    check_refused(file, points, "000009", t, U, "'/points/000009'", "string 1 is missing");
    storq_pt_free(t);

    t = copy_of(root); /* two members of one name */
    storq_pt_node *reps = node_at(t, "replications");
    free(reps->kids[3].name);
    reps->kids[3].name = strdup("small");
    check_refused(file, points, "000009", t, U, "'/points/000009/replications'",
                  "two of its members are named 'small'");
    storq_pt_free(t);

    t = copy_of(root);
    storq_pt_attr *a = attr_at(t, "v_u32");
    free(a->name);
    a->name = strdup("n"); /* out of order too */
    check_refused(file, points, "000009", t, U, "'/points/000009'",
                  "two of its attributes are named 'n'");
    storq_pt_free(t);

    t = copy_of(root);
    d = node_at(t, "theory");
    free(d->name);
    d->name = strdup("the/ory");
    check_refused(file, points, "000009", t, U, "'/points/000009'",
                  "member 'the/ory': a name HDF5 reads as a path");
    storq_pt_free(t);

    t = copy_of(root);
    d = node_at(t, "observables/u/alias");
    d->target[0] = '\0';
    check_refused(file, points, "000009", t, U, "/observables/u/alias", "without a target");
    d->target[0] = 'c';
    d->kind = (storq_pt_kind)9;
    check_refused(file, points, "000009", t, U, "/observables/u/alias", "of kind 9");
    storq_pt_free(t);

    t = NULL; /* deeper than any point */
    storq_pt_node *g;
    OK(storq_pt_new(&t, &err));
    g = t;
    for (int i = 0; i < 40; i++)
        OK(storq_pt_add_group(g, "g", &g, &err));
    check_refused(file, points, "000009", t, U, "/g/g/g/g", "nested more than 32 deep");
    storq_pt_free(t);

    double x = 1;
    storq_pt_node ds = {.name = "", .kind = STORQ_PT_DATASET, .type = STORQ_PT_F64, .data = &x};
    check_refused(file, points, "000009", &ds, U, "'/points/000009'", "root is not a group");
    check_refused(file, points, "000009", NULL, U, "'/points/000009'", "root is not a group");

    OK(storq_pt_write_h5(file, points, "000001", root, &err));
    check_refused(file, points, "000001", root, U, "'/points/000001'", "exists already");
    check_refused(file, points, "", root, U, "", "without a name");

    /* HDF5's failures, a runtime error that links nothing: a parent in another file (the last
     * link, once every object is made), a file open read-only (the first object) */
    const char *other_path = "test_point_tree_write_other.h5";
    hid_t other = create_file(other_path);
    check_refused(other, points, "000002", root, STORQ_ERR_RUNTIME, "(writing '/points/000002')",
                  "cannot link '000002'");
    CHECK(H5Fget_obj_count(other, H5F_OBJ_ALL) == 1);
    CHECK(H5Fclose(other) >= 0);
    CHECK(!storq_h5u_has_link(points, "000002") && !storq_h5u_has_link(points, "000009"));
    H5Gclose(points);
    CHECK(H5Fget_obj_count(file, H5F_OBJ_ALL) == 1);
    CHECK(H5Fclose(file) >= 0);

    file = open_file(path, H5F_ACC_RDONLY);
    points = H5Gopen2(file, "points", H5P_DEFAULT);
    check_refused(file, points, "000002", root, STORQ_ERR_RUNTIME,
                  "(writing '/points/000002/observables/u/mean')", "cannot create dataset 'mean'");
    H5Gclose(points);
    CHECK(H5Fget_obj_count(file, H5F_OBJ_ALL) == 1);
    CHECK(H5Fclose(file) >= 0);
    remove(other_path);
    remove(path);
}

int main(void)
{
    storq_h5u_quiet();
    storq_pt_node *root = build_tree();
    check_by_hand(root);
    check_refusals(root);
    storq_pt_free(root);
    const char *real = getenv("STORQ_TEST_H5");
    if (real && *real)
        check_real_points(real, getenv("STORQ_BIN"));
    else
        printf("STORQ_TEST_H5 not set: no real point written\n");
    return check_report("test_point_tree_write");
}
