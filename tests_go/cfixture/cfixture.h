/* cfixture: managed tensors with arbitrary (hostile) field values in guarded
 * C memory, with counting deleters. Test support only. */
#ifndef GODLPACK_CFIXTURE_H_
#define GODLPACK_CFIXTURE_H_

#include <stddef.h>
#include <stdint.h>

#include "dlpack.h"

/* Allocates n bytes (n may be 0) that end exactly where a PROT_NONE page
 * begins, so that reading one byte past them faults. Returns NULL on failure.
 * *map and *map_len receive the mapping to release with cf_unmap. */
void *cf_guarded(size_t n, void **map, size_t *map_len);
void cf_unmap(void *map, size_t map_len);

/* Kinds of fixture structs. */
enum { CF_LEGACY = 1, CF_VERSIONED = 2, CF_TRUNCATED = 3 };

/* A managed tensor of the given kind, zeroed, preceded by its record and
 * ending at a guard page. CF_TRUNCATED maps only version, manager_ctx and
 * deleter of a DLManagedTensorVersioned: reading flags or dl_tensor faults.
 * The deleter is the counting deleter of the kind. */
void *cf_new(int kind);

/* Attaches guarded copies of shape/strides (n entries; src NULL => leave the
 * field NULL) and owned data to the struct made by cf_new. Return 0 or -1. */
int cf_set_shape(void *t, const int64_t *src, size_t n);
int cf_set_strides(void *t, const int64_t *src, size_t n);
void *cf_alloc_data(void *t, size_t n);
void cf_set_data(void *t, uintptr_t addr);

int64_t cf_calls(void *t);
int64_t cf_total(void);
void cf_reset_total(void);
void cf_free(void *t);

void *cf_deleter_for(int kind);

#endif
