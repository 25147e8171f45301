/* The raw bytes of a string that is not UTF-8: see utf8.h. */
#include "utf8.h"

#include <stdio.h>
#include <string.h>

int storq_utf8_raw_attr(hid_t loc, const char *name, const char *text, storq_error *err)
{
    size_t n = text ? strlen(text) : 0;
    if (storq_utf8_valid(text ? text : "", n))
        return STORQ_OK;
    char full[256];
    snprintf(full, sizeof full, "%s_bytes", name);
    hsize_t dims[1] = {n};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t a = space >= 0 ? H5Acreate2(loc, full, H5T_STD_U8LE, space, H5P_DEFAULT, H5P_DEFAULT)
                         : -1;
    herr_t w = a >= 0 ? H5Awrite(a, H5T_NATIVE_UCHAR, text) : -1;
    if (a >= 0)
        H5Aclose(a);
    if (space >= 0)
        H5Sclose(space);
    if (w < 0)
        return storq_fail(err, STORQ_ERR_RUNTIME, "cannot write attribute '%s'", full);
    return STORQ_OK;
}
