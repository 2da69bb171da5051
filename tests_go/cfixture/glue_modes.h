// Modes of cf_export_glue / cf_import_glue (glue.go).
#ifndef CF_GLUE_MODES_H_
#define CF_GLUE_MODES_H_
#define CF_NORMAL 0    /* as the skin runs it: fast path, else core */
#define CF_FAST_ONLY 1 /* fast path, else CF_DECLINED (core not called) */
#define CF_SLOW_ONLY 2 /* core only */
#define CF_DECLINED (-2)
#endif
