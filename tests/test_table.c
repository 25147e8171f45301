/* The text table printer (src/toolkit/table.c): widths from the content or a minimum, left and right
 * alignment, gaps from the layout, title and indent, no spaces at the ends of lines, and what a
 * bad layout does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "table.h"

/* What t prints, as a string to free(); *rc gets storq_table_print's return. */
static char *printed(const storq_table *t, int *rc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return NULL;
    *rc = storq_table_print(t, out);
    fclose(out);
    return text;
}

static void check_prints(const storq_table *t, const char *expect)
{
    int rc = 1;
    char *text = printed(t, &rc);
    CHECK(rc == 0);
    CHECK(text && strcmp(text, expect) == 0);
    if (text && strcmp(text, expect) != 0)
        fprintf(stderr, "printed:\n%s---\nexpected:\n%s---\n", text, expect);
    free(text);
}

static void test_widths_and_alignment(void)
{
    storq_table t;
    CHECK(storq_table_init(&t, 3, "l  r  l", "  ") == 0);
    storq_table_header(&t, "name", "mean", "unit", (char *)NULL);
    storq_table_add(&t, "%s", "delay");
    storq_table_add(&t, "%.3g", 1.5);
    storq_table_add(&t, "%s", "time");
    storq_table_add(&t, "%s", "u_l1_noise");
    storq_table_add(&t, "%d", -12345);
    storq_table_add(&t, "%s", ""); /* no spaces at the end of its line */
    CHECK(storq_table_rows(&t) == 2);
    check_prints(&t, "  name          mean  unit\n"
                     "  delay          1.5  time\n"
                     "  u_l1_noise  -12345\n");
    storq_table_free(&t);
}

static void test_min_width_gaps_title(void)
{
    storq_table t;
    CHECK(storq_table_init(&t, 3, "l r  l", NULL) == 0);
    storq_table_min_width(&t, 0, 6);
    storq_table_min_width(&t, 1, 5);
    storq_table_min_width(&t, 7, 5); /* no such column: ignored */
    storq_table_title(&t, "%s:", "comparison");
    storq_table_add(&t, "a");
    storq_table_add(&t, "1");
    storq_table_add(&t, "first");
    storq_table_add(&t, "bbbbbbbb"); /* wider than the minimum */
    storq_table_add(&t, "2");
    storq_table_add(&t, "second");
    check_prints(&t, "comparison:\n"
                     "a            1  first\n"
                     "bbbbbbbb     2  second\n");
    storq_table_free(&t);
}

/* Fewer letters than columns: the last one and its gap repeat; NULL is "l  l". */
static void test_repeated_layout(void)
{
    storq_table t;
    CHECK(storq_table_init(&t, 4, "r r", "") == 0);
    storq_table_add(&t, "index");
    storq_table_add(&t, "x");
    storq_table_add(&t, "y");
    storq_table_add(&t, "z");
    storq_table_end_header(&t);
    storq_table_add(&t, "0");
    storq_table_add(&t, "10");
    storq_table_add(&t, "200");
    storq_table_add(&t, "3000");
    CHECK(storq_table_rows(&t) == 1);
    check_prints(&t, "index  x   y    z\n"
                     "    0 10 200 3000\n");
    storq_table_free(&t);

    CHECK(storq_table_init(&t, 3, NULL, " ") == 0);
    storq_table_add(&t, "a");
    storq_table_add(&t, "bb");
    storq_table_add(&t, "c");
    storq_table_add(&t, "dddd"); /* a short last row */
    CHECK(storq_table_rows(&t) == 2);
    check_prints(&t, " a     bb  c\n"
                     " dddd\n");
    storq_table_free(&t);
}

static void test_empty_and_bad(void)
{
    storq_table t;
    CHECK(storq_table_init(&t, 2, "l  l", "  ") == 0);
    storq_table_header(&t, "scalar", "mean", (char *)NULL);
    CHECK(storq_table_rows(&t) == 0);
    storq_table_free(&t);

    const char *bad[] = {"", "x", "l l l", " l", "l ", "lr", NULL};
    for (const char **b = bad; *b; b++) {
        CHECK(storq_table_init(&t, 2, *b, "") == -1);
        storq_table_add(&t, "cell"); /* ignored */
        CHECK(storq_table_rows(&t) == 0);
        int rc = 0;
        char *text = printed(&t, &rc);
        CHECK(rc == -1);
        CHECK(text && text[0] == '\0');
        free(text);
        storq_table_free(&t);
    }
    CHECK(storq_table_init(&t, 0, NULL, "") == -1);
    storq_table_free(&t);
}

int main(void)
{
    test_widths_and_alignment();
    test_min_width_gaps_title();
    test_repeated_layout();
    test_empty_and_bad();
    return check_report("test_table");
}
