#include "h5_info_theory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_util.h"

/* The values of dataset name when it holds len of them. */
static double *read_len(hid_t theory, const char *name, size_t len)
{
    storq_error ignore = {0};
    double *v = NULL;
    size_t n = 0;
    if (storq_h5u_read_f64(theory, name, &v, &n, &ignore) != STORQ_OK || n != len) {
        free(v);
        v = NULL;
    }
    H5Eclear2(H5E_DEFAULT);
    return v;
}

static char *grid_of(hid_t theory, const char *name)
{
    storq_error ignore = {0};
    char *grid = NULL;
    hid_t d = H5Dopen2(theory, name, H5P_DEFAULT);
    if (d >= 0 && storq_h5u_has_attr(d, "grid"))
        storq_h5u_read_attr_string(d, "grid", &grid, &ignore);
    if (d >= 0)
        H5Dclose(d);
    H5Eclear2(H5E_DEFAULT);
    return grid;
}

int storq_info_theory_for(hid_t theory, const char *obs, size_t len, double **values, char *name,
                          size_t size)
{
    *values = NULL;
    name[0] = '\0';
    if (theory < 0)
        return 0;
    storq_error ignore = {0};
    char **names = NULL;
    size_t n = 0;
    if (storq_h5u_list_links(theory, &names, &n, &ignore) != STORQ_OK)
        n = 0;
    for (size_t i = 0; i < n && !*values; i++) {
        char *grid = grid_of(theory, names[i]);
        if (grid && !strcmp(grid, obs) && (*values = read_len(theory, names[i], len)) != NULL)
            snprintf(name, size, "%s", names[i]);
        free(grid);
    }
    storq_h5u_free_names(names, n);
    if (!*values && storq_h5u_has_link(theory, obs) &&
        (*values = read_len(theory, obs, len)) != NULL)
        snprintf(name, size, "%s", obs);
    H5Eclear2(H5E_DEFAULT);
    return *values != NULL;
}
