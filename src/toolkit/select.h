/* The k-th smallest of an array of doubles, without a full sort: what fork-join models need per
 * job (a job leaves at its k-th finished task), and what their benchmark's yardstick uses. */
#ifndef STORQ_SELECT_H
#define STORQ_SELECT_H

#include <stddef.h>

/* The k-th smallest (1-based) of a[0..n-1]; reorders a. Quickselect (Hoare partition around the
 * middle element); k = 1 and k = n are single passes. */
static inline double storq_kth_smallest(double *a, size_t n, size_t k)
{
    if (k == 1) {
        double m = a[0];
        for (size_t i = 1; i < n; i++)
            m = a[i] < m ? a[i] : m;
        return m;
    }
    if (k == n) {
        double m = a[0];
        for (size_t i = 1; i < n; i++)
            m = a[i] > m ? a[i] : m;
        return m;
    }
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1;
    const ptrdiff_t want = (ptrdiff_t)k - 1;
    while (lo < hi) {
        const double pivot = a[lo + (hi - lo) / 2];
        ptrdiff_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                double tmp = a[i];
                a[i] = a[j];
                a[j] = tmp;
                i++;
                j--;
            }
        }
        /* a[lo..j] <= pivot <= a[i..hi], and everything between equals the pivot */
        if (want <= j)
            hi = j;
        else if (want >= i)
            lo = i;
        else
            return a[want];
    }
    return a[want];
}

#endif
