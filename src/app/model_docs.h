/* The summaries of the models' documentation pages (docs/models/MODEL.md), embedded in the
 * binary at build time (cmake/embed_model_docs.cmake) so that an installed storq prints them
 * without the source tree. */
#ifndef STORQ_MODEL_DOCS_H
#define STORQ_MODEL_DOCS_H

typedef struct storq_model_doc {
    const char *name;    /* the model; NULL ends the table */
    const char *title;   /* the page's title */
    const char *source;  /* "Source: ..." the paper the model follows, or "" */
    const char *summary; /* the page's "What it models" section, lines ending in '\n' */
} storq_model_doc;

extern const storq_model_doc storq_model_docs[];

#endif
