/* `storq convert`: a quantity's attributes (unit, description, grid, an axis's name...). 1.x
 * stored them on every point's object; one the same at every point that has the quantity is
 * stored once, as 1.x did; one that differs between points (a cluster's grid naming the
 * point's policy, a description naming its load) becomes an array of one value a row, "" or 0
 * where the row lacks the quantity (docs/hdf5-schema-2.md, Quantities). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "h5_convert_internal.h"
#include "h5_util.h"
#include "schema.h"

/* One attribute over the rows: text (a scalar string) or a number (a scalar number); other
 * shapes are copied from the first point as they are. */
typedef struct row_attr {
    char *name;
    int kind; /* 's' string, 'n' number, 'o' other */
    char **text;
    double *num;
    int differ;
} row_attr;

static int attr_kind(hid_t obj, const char *name)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1, s = a >= 0 ? H5Aget_space(a) : -1;
    int scalar = s >= 0 && H5Sget_simple_extent_type(s) == H5S_SCALAR;
    H5T_class_t c = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    int kind = !scalar ? 'o' : c == H5T_STRING ? 's' : c == H5T_INTEGER || c == H5T_FLOAT ? 'n'
                                                                                        : 'o';
    storq_h5u_close_type(&t);
    storq_h5u_close_space(&s);
    if (a >= 0)
        H5Aclose(a);
    return kind;
}

/* The value of attribute ra at object obj (row row); differ set when it is not row 0's. */
static void read_row(hid_t obj, row_attr *ra, size_t row, size_t first)
{
    storq_error ignore = {0};
    int has = storq_h5u_has_attr(obj, ra->name);
    if (ra->kind == 's') {
        char *v = NULL;
        if (!has || storq_h5u_read_attr_string(obj, ra->name, &v, &ignore))
            v = strdup("\x01missing");
        ra->text[row] = v;
        ra->differ |= v && ra->text[first] && strcmp(v, ra->text[first]) != 0;
    } else if (ra->kind == 'n') {
        double x = NAN;
        if (has)
            storq_h5u_read_attr_f64(obj, ra->name, &x, &ignore);
        ra->num[row] = x;
        ra->differ |= !(x == ra->num[first] || (isnan(x) && isnan(ra->num[first])));
    }
    H5Eclear2(H5E_DEFAULT);
}

/* Attribute ra written to dst: once, copied from the first point's object src, or one a row. */
static int write_attr(const cv_plan *p, const cv_qty *q, hid_t src, const row_attr *ra, hid_t dst,
                      storq_error *err)
{
    if (!ra->differ || ra->kind == 'o')
        return storq_cv_copy_attr(src, ra->name, dst, err);
    if (ra->kind == 's') {
        const char **v = calloc(p->P + 1, sizeof *v);
        if (!v)
            return STORQ_RUNTIME_FAIL(err, "convert: out of memory");
        for (size_t r = 0; r < p->P; r++)
            v[r] = q->present[r] && ra->text[r] && strcmp(ra->text[r], "\x01missing")
                       ? ra->text[r]
                       : "";
        int rc = storq_h5u_attr_strings(dst, ra->name, v, p->P, err);
        free(v);
        return rc;
    }
    double *x = calloc(p->P + 1, sizeof *x);
    if (!x)
        return STORQ_RUNTIME_FAIL(err, "convert: out of memory");
    for (size_t r = 0; r < p->P; r++)
        x[r] = q->present[r] ? ra->num[r] : 0;
    hsize_t n = p->P;
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t a = space >= 0 ? H5Acreate2(dst, ra->name, H5T_IEEE_F64LE, space, H5P_DEFAULT,
                                      H5P_DEFAULT)
                         : -1;
    int ok = a >= 0 && H5Awrite(a, H5T_NATIVE_DOUBLE, x) >= 0;
    if (a >= 0)
        H5Aclose(a);
    storq_h5u_close_space(&space);
    free(x);
    return ok ? STORQ_OK : storq_h5u_fail(err, dst, "cannot write attribute '%s'", ra->name);
}

int storq_cv_quantity_attrs(const cv_plan *p, hid_t in, size_t qi, const char *sub, hid_t dst,
                            storq_error *err)
{
    const cv_qty *q = &p->q[qi];
    char path[900], point[STORQ_SCHEMA_POINT_PATH_MAX];
    size_t first = 0;
    while (first < p->P && !q->present[first])
        first++;
    if (first == p->P)
        return STORQ_OK;
    storq_cv_point_path(p, first, point, sizeof point);
    storq_cv_quantity_path(p, qi, sub, point, path, sizeof path);
    hid_t src = H5Oopen(in, path, H5P_DEFAULT);
    if (src < 0)
        return storq_h5u_fail(err, in, "cannot open '%s'", path);
    char **names = NULL;
    int rc = storq_h5u_attr_names(src, &names) == 0
                 ? STORQ_OK
                 : storq_h5u_fail(err, src, "cannot list the attributes of '%s'", path);
    size_t n = 0;
    while (names && names[n])
        n++;
    for (size_t i = 0; i < n; i++) /* its checksum is not carried over: an empty name skips it */
        if (strcmp(names[i], STORQ_SCHEMA_ATTR_CRC32) == 0)
            names[i][0] = '\0';
    row_attr *ra = rc ? NULL : calloc(n + 1, sizeof *ra);
    if (!rc && !ra)
        rc = STORQ_RUNTIME_FAIL(err, "convert: out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        ra[i].name = names[i];
        ra[i].kind = names[i][0] ? attr_kind(src, names[i]) : 'o';
        if ((ra[i].kind == 's' && !(ra[i].text = calloc(p->P + 1, sizeof *ra[i].text))) ||
            (ra[i].kind == 'n' && !(ra[i].num = calloc(p->P + 1, sizeof *ra[i].num))))
            rc = STORQ_RUNTIME_FAIL(err, "convert: out of memory");
    }
    for (size_t r = first; !rc && r < p->P; r++) { /* every row's object, opened once */
        if (!q->present[r])
            continue;
        storq_cv_point_path(p, r, point, sizeof point);
        storq_cv_quantity_path(p, qi, sub, point, path, sizeof path);
        hid_t o = r == first ? src : H5Oopen(in, path, H5P_DEFAULT);
        if (o < 0) {
            rc = storq_h5u_fail(err, in, "cannot open '%s'", path);
            break;
        }
        for (size_t i = 0; i < n; i++)
            if (ra[i].kind != 'o')
                read_row(o, &ra[i], r, first);
        if (o != src)
            H5Oclose(o);
    }
    for (size_t i = 0; !rc && i < n; i++)
        if (names[i][0])
            rc = write_attr(p, q, src, &ra[i], dst, err);
    for (size_t i = 0; ra && i < n; i++) {
        for (size_t r = 0; ra[i].text && r < p->P; r++)
            free(ra[i].text[r]);
        free(ra[i].text);
        free(ra[i].num);
    }
    free(ra);
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
    H5Oclose(src);
    return rc;
}
