// exchange.c: the import of from_dlpack as one model (docs/rules.md C1,
// C6-C9). gd_import_next decides every step; the C skin executes each one
// (a call to __dlpack__, __dlpack_device__, the exchange API, an import)
// and reports what happened in the state. Pure C over plain structs: the
// no-copy CPU import asks it without entering Go, and tests_go runs it from
// Go with the same structs (tests_go/exchange_test.go).
#include <string.h>

#include "godlpack.h"

// Phases: where the import stands.
enum {
  P_START = 0,
  P_TORCHED,     // torch's refusals checked
  P_API,         // the exchange API was tried
  P_DEV_HOST,    // the producer's device asked: is a host copy asked first?
  P_DEV_STREAM,  // the producer's device asked: does it get our stream at once?
  P_ASKED,       // __dlpack__ asked with our keywords (or with none: a type that refuses them)
  P_ASKED_PLAIN, // asked again without keywords after a TypeError (C1)
  P_STREAM,      // asked with godlpack's queue as the stream (C8)
  P_HOST,        // asked for a host copy, dl_device=(kDLCPU, 0) (C7)
  P_END,
};

const gd_library_fact gd_torch_facts[GD_TORCH_FACTS] = {
    {"requires_grad", 0, "from_dlpack(): cannot import a torch.Tensor that requires grad; call tensor.detach() first"},
    {"is_conj", 1,
     "from_dlpack(): cannot import a torch.Tensor with the conjugate bit set; call tensor.resolve_conj() first"},
    {"is_neg", 1,
     "from_dlpack(): cannot import a torch.Tensor with the negative bit set; call tensor.resolve_neg() first"},
};

const gd_type_fact gd_type_facts[GD_TYPE_FACTS] = {
    {GD_TYPE_TORCH, 0, "torch", "Tensor"},
    {GD_TYPE_TORCH, 0, "torch", "TensorBase"},
    {GD_TYPE_TORCH, 0, "torch", "_TensorBase"},
    {GD_TYPE_NDARRAY, 1, "numpy", "ndarray"},
    {GD_TYPE_SYCL_QUEUE, 0, "dpctl", "SyclQueue"},
};

static void req_base(const gd_import_state *s, gd_import_req *r) {
  memset(r, 0, sizeof *r);
  r->copy = s->copy;
  r->has_device = s->has_device;
  r->dev_type = s->device.device_type;
  r->dev_id = s->device.device_id;
}

static void done(gd_import_state *s, gd_import_step *st) {
  s->phase = P_END;
  st->kind = GD_STEP_DONE;
}

// The first __dlpack__ call (C1): our keywords, unless the type refused them
// before; our own arrays are asked for max_version only (core plans their
// device and copy, so that a refusal speaks of the user's device= and copy=).
static void ask(gd_import_state *s, gd_import_step *st) {
  s->phase = P_ASKED;
  st->kind = GD_STEP_ASK;
  req_base(s, &st->req);
  if (s->kw < 0) return; // no keywords: nothing negotiated
  st->kw_max_version = 1;
  if (!s->own) {
    st->kw_dl_device = s->has_device;
    st->dl_device = s->device;
    st->kw_copy = s->copy != GD_COPY_IF_NEEDED;
    st->req.negotiated = 1;
    st->req.may_ask_stream = 1;
    st->req.may_ask_host_copy = !s->has_device;
  }
  st->note_kw = s->kw == 0;
}

// Once more without keywords, after a TypeError of a type not seen taking
// them (numpy's rule, whatever the message): godlpack honours device and
// copy itself.
static void ask_plain(gd_import_state *s, gd_import_step *st) {
  s->phase = P_ASKED_PLAIN;
  st->kind = GD_STEP_ASK;
  req_base(s, &st->req);
  st->retried = 1;
  st->note_kw = -1;
}

// C8: again with godlpack's queue on the tensor's device as the stream. A
// copy=True import does not pass copy: the producer's own copy is not
// reliably ordered before our queue (dpnp's is not: its values may be read
// before they are written), so godlpack takes the tensor in place, waits for
// the queue, and copies it itself (core.PlanImport: no IS_COPIED, a copy).
static void ask_stream(gd_import_state *s, gd_import_step *st, DLDevice on) {
  s->phase = P_STREAM;
  st->kind = GD_STEP_ASK;
  req_base(s, &st->req);
  st->kw_max_version = 1;
  st->kw_dl_device = s->has_device;
  st->dl_device = s->device;
  st->kw_copy = s->copy == GD_COPY_NEVER;
  st->kw_stream = 1;
  st->stream_on = on;
  st->req.negotiated = 1;
  st->req.stream_given = 1;
  st->req.may_ask_host_copy = !s->has_device;
}

// C7: a tensor the CPU cannot read, asked for as a host copy; its IS_COPIED
// copy is the result, not copied again.
static void ask_host(gd_import_state *s, gd_import_step *st, DLDevice on) {
  s->phase = P_HOST;
  st->kind = GD_STEP_ASK;
  req_base(s, &st->req);
  st->kw_max_version = 1;
  st->kw_dl_device = 1;
  st->dl_device.device_type = kDLCPU;
  st->dl_device.device_id = 0;
  st->kw_copy = s->copy != GD_COPY_IF_NEEDED;
  st->host_copy = 1;
  st->tensor_device = on;
  st->req.has_device = 1;
  st->req.dev_type = kDLCPU;
  st->req.dev_id = 0;
  st->req.negotiated = 1;
}

static int asks_host_copy(const gd_import_state *s, int32_t t) {
  return t > 0 && t < 64 && (s->host_copy_types >> t) & 1;
}

static int same_device(DLDevice a, DLDevice b) {
  return a.device_type == b.device_type && a.device_id == b.device_id;
}

static void device_step(gd_import_state *s, gd_import_step *st, int phase) {
  s->phase = phase;
  st->kind = GD_STEP_DEVICE;
}

// Before the first __dlpack__ call: where the tensor lives may decide it.
static void probe(gd_import_state *s, gd_import_step *st) {
  if (s->phase <= P_DEV_HOST && !s->own && !s->has_device && s->copy == GD_COPY_ALWAYS) {
    // A copy is made anyway: a producer on a device the CPU cannot read is
    // not made to copy there for nothing.
    if (!s->pdev_known) return device_step(s, st, P_DEV_HOST);
    if (asks_host_copy(s, s->pdev.device_type)) return ask_host(s, st, s->pdev);
  }
  if (s->phase <= P_DEV_STREAM && s->stream_dev != 0 && !s->own) {
    // Tensors of this type were asked again with a stream: one on that
    // device gets it at once (one __dlpack__ call).
    if (!s->pdev_known) return device_step(s, st, P_DEV_STREAM);
    if (s->pdev.device_type == s->stream_dev && (!s->has_device || same_device(s->device, s->pdev)))
      return ask_stream(s, st, s->pdev);
  }
  ask(s, st);
}

static void after_call(gd_import_state *s, gd_import_step *st) {
  int ph = s->phase;
  switch (s->outcome) {
    case GD_OUT_TYPE_ERROR:
      if (s->kw == 0 && s->asked_kw) return ask_plain(s, st);
      s->phase = P_END;
      st->kind = GD_STEP_RAISE;
      return;
    case GD_OUT_RETRY:
      if (s->retry == GD_RETRY_STREAM && ph == P_ASKED) {
        ask_stream(s, st, s->rdev);
        st->note_stream_dev = s->rdev.device_type;
        return;
      }
      if (s->retry == GD_RETRY_HOST_COPY && ph != P_HOST) return ask_host(s, st, s->rdev);
      return done(s, st);
    default:
      return done(s, st);
  }
}

void gd_import_next(gd_import_state *s, gd_import_step *st) {
  memset(st, 0, sizeof *st);
  switch (s->phase) {
    case P_START:
      if (s->raw_capsule) { // C6: nothing negotiated, nobody to ask again
        s->phase = P_END;
        st->kind = GD_STEP_TAKE;
        req_base(s, &st->req);
        break;
      }
      if (s->torch && !s->shadowed) { // the API's checks are ours: only where the API is used
        s->phase = P_TORCHED;
        st->kind = GD_STEP_TORCH;
        break;
      }
      // fall through
    case P_TORCHED:
      if (s->has_api && !s->has_device && !s->shadowed) { // C9: a subclass's own __dlpack__ speaks for it
        s->phase = P_API;
        st->kind = GD_STEP_API;
        req_base(s, &st->req);
        st->req.no_sync = 1;
        break;
      }
      probe(s, st);
      break;
    case P_API:
      if (s->outcome != GD_OUT_DECLINED) done(s, st);
      else probe(s, st);
      break;
    case P_DEV_HOST:
    case P_DEV_STREAM:
      s->pdev_known = 1;
      probe(s, st);
      break;
    case P_ASKED:
    case P_ASKED_PLAIN:
    case P_STREAM:
    case P_HOST:
      after_call(s, st);
      break;
    default:
      done(s, st);
  }
  s->asked_kw = st->kind == GD_STEP_ASK && st->kw_max_version;
}

/* numpy's builtin type numbers (NPY_TYPES, LP64) whose __dlpack__ export is
 * the plain DLPack dtype; the others (longdouble, object, strings, dates,
 * structured, user-defined) are left to __dlpack__. */
static int gd_np_dtype(int type_num, DLDataType *dt) {
  static const struct {
    uint8_t code, bits;
  } t[24] = {
      [0] = {kDLBool, 8},  [1] = {kDLInt, 8},    [2] = {kDLUInt, 8},     [3] = {kDLInt, 16},
      [4] = {kDLUInt, 16}, [5] = {kDLInt, 32},   [6] = {kDLUInt, 32},    [7] = {kDLInt, 64},
      [8] = {kDLUInt, 64}, [9] = {kDLInt, 64},   [10] = {kDLUInt, 64},   [11] = {kDLFloat, 32},
      [12] = {kDLFloat, 64}, [14] = {kDLComplex, 64}, [15] = {kDLComplex, 128}, [23] = {kDLFloat, 16},
  };
  if (type_num < 0 || type_num >= 24 || t[type_num].bits == 0) return 0;
  dt->code = t[type_num].code;
  dt->bits = t[type_num].bits;
  dt->lanes = 1;
  return 1;
}

int gd_numpy_route(const gd_numpy_fields *a, gd_numpy_view *out) {
  if (!a->writeable || a->warn_on_write || a->nd < 0 || a->nd > GD_MAX_NDIM) return 0;
  if ((a->byteorder != '=' && a->byteorder != '|') || !gd_np_dtype(a->type_num, &out->dtype)) return 0;
  int shift = __builtin_ctz(out->dtype.bits / 8u); /* a power of two: no division per dimension */
  for (int i = 0; i < a->nd; i++) {
    int64_t st = a->strides[i];
    if (a->dims[i] <= 1 || (st & ((INT64_C(1) << shift) - 1)) != 0) return 0;
    out->shape[i] = a->dims[i];
    out->strides[i] = st >> shift; /* exact: st is a multiple of the itemsize (negative too) */
  }
  out->data = a->data;
  out->ndim = a->nd;
  return 1;
}

const DLPackExchangeAPI *gd_exchange_api_spoken(const DLPackExchangeAPI *api) {
  // The chain is the producer's; a guard against a cycle in it.
  const DLPackExchangeAPIHeader *hd = api ? &api->header : NULL;
  for (int guard = 0; hd != NULL && guard < 16; guard++, hd = hd->prev_api) {
    if (hd->version.major == DLPACK_MAJOR_VERSION && hd->version.minor >= GD_EXCHANGE_API_MIN_MINOR) {
      const DLPackExchangeAPI *a = (const DLPackExchangeAPI *)hd;
      return a->managed_tensor_from_py_object_no_sync != NULL ? a : NULL;
    }
  }
  return NULL;
}
