/* The raw bytes of a string that is not UTF-8, beside its escaped text (utf8_text.h). */
#ifndef STORQ_IO_UTF8_H
#define STORQ_IO_UTF8_H

#include <hdf5.h>

#include "error.h"
#include "utf8_text.h"

/* When text is not valid UTF-8: its bytes, as written, in the uint8 attribute NAME_bytes of loc
 * (beside the escaped string attribute NAME, or on a dataset holding the escaped text), so a
 * reader that needs the exact path can have it. Nothing is written for valid text. */
int storq_utf8_raw_attr(hid_t loc, const char *name, const char *text, storq_error *err);

#endif
