// Library-wide scalar types, included by several kernels.
#ifndef CORPUS_TYPES_H
#define CORPUS_TYPES_H
typedef float real_t;
typedef unsigned int index_t;
#endif
