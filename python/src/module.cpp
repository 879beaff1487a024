// meshmatrix._meshmatrix: the Python binding of the C library (nanobind).
//
// Ownership. A Context owns an mmx_ctx. Every object made through it (Mesh, SubdivPlan, the
// arrays the library allocates for a result) keeps a reference to the Python Context, so the
// context outlives them whatever order Python frees them in (core.h: free objects before their
// context). Arrays handed to Python are views without a copy wherever the library's storage
// is the array: a mesh's positions and faces are owned by the Python Mesh (the view keeps it
// alive), a query's or operator's arrays by a capsule that frees the library's result.
//
// Device arrays (a Mesh on a CUDA Context) are handed out as DeviceArray, a DLPack producer:
// torch.from_dlpack / cupy.from_dlpack take them without a copy. Who synchronises: on a
// Context made on the caller's stream, nothing is waited for (the library's work and the
// consumer's are ordered on that stream) unless the consumer names another stream; on a
// Context with its own stream, __dlpack__ waits for that stream (mmx_ctx_sync) first. Device
// arrays coming in are asked for with __dlpack__(stream=the context's stream), so the
// producer orders its pending writes before the library reads them (the DLPack protocol).
//
// The GIL is held throughout: the library's calls run as ordinary Python calls.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include <meshmatrix.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// ---- errors ---------------------------------------------------------------------------------

// A library error on its way to Python: the translator below raises the meshmatrix.Error
// subclass of its status with the library's sentence.
struct MmxError : std::runtime_error {
    mmx_status status;
    MmxError(mmx_status s, const std::string &m) : std::runtime_error(m), status(s) {}
};

[[noreturn]] void raise_status(mmx_ctx *ctx, mmx_status s, const char *call)
{
    const char *detail = ctx ? mmx_ctx_error(ctx) : "";
    std::string msg(call, strcspn(call, "(")); // the function's name
    msg += ": ";
    msg += (detail && *detail) ? detail : mmx_status_str(s);
    throw MmxError(s, msg);
}

[[noreturn]] void raise_arg(mmx_status s, const std::string &msg) { throw MmxError(s, msg); }

#define MMX_PY_CHECK(ctx, call)                                                                  \
    do {                                                                                         \
        mmx_status s_ = (call);                                                                  \
        if (s_ != MMX_OK) raise_status((ctx), s_, #call);                                        \
    } while (0)

// ---- contexts -------------------------------------------------------------------------------

struct Context {
    mmx_ctx *ctx = nullptr;
    bool user_stream = false; // made on the caller's stream: no waits at hand-over
    nb::object stream_owner;  // the caller's stream object, kept alive with the context

    ~Context() { mmx_ctx_free(ctx); }
    bool on_device() const { return mmx_ctx_space(ctx) == MMX_SPACE_DEVICE; }
    uintptr_t stream() const { return (uintptr_t) mmx_ctx_cuda_stream(ctx); }
};

// The handle of a stream given as an int, an object with cuda_stream (torch.cuda.Stream), ptr
// (cupy.cuda.Stream) or __cuda_stream__ (the CUDA stream protocol: (version, handle)).
uintptr_t stream_handle(nb::handle s)
{
    if (nb::isinstance<nb::int_>(s)) return nb::cast<uintptr_t>(s);
    if (nb::hasattr(s, "__cuda_stream__")) {
        nb::object t = s.attr("__cuda_stream__");
        if (PyCallable_Check(t.ptr())) t = t();
        return nb::cast<uintptr_t>(t[1]);
    }
    if (nb::hasattr(s, "cuda_stream")) return nb::cast<uintptr_t>(s.attr("cuda_stream"));
    if (nb::hasattr(s, "ptr")) return nb::cast<uintptr_t>(s.attr("ptr"));
    raise_arg(MMX_ERR_ARG, "Context: stream must be an int handle or an object with "
                           "cuda_stream, ptr or __cuda_stream__, not " +
                               nb::cast<std::string>(nb::str(nb::type_name(s.type()))));
}

// The context is made and switched first, and the Python object constructed only once that
// succeeded: a failed __init__ leaves nothing to free.
void context_init(Context *self, nb::object device, nb::object stream)
{
    mmx_ctx *ctx = nullptr;
    mmx_status s = mmx_ctx_create(&ctx);
    if (s != MMX_OK) raise_status(nullptr, s, "mmx_ctx_create");
    std::unique_ptr<mmx_ctx, void (*)(mmx_ctx *)> guard(ctx, mmx_ctx_free);
    bool user = false;
    if (!device.is_none()) {
        int dev = nb::cast<int>(device);
        if (stream.is_none()) {
            MMX_PY_CHECK(ctx, mmx_ctx_use_cuda(ctx, dev));
        } else {
            uintptr_t h = stream_handle(stream);
            MMX_PY_CHECK(ctx, mmx_ctx_use_cuda_stream(ctx, dev, (void *) h));
            user = true;
        }
    } else if (!stream.is_none()) {
        raise_arg(MMX_ERR_ARG, "Context: a stream needs a CUDA device (device=N)");
    }
    new (self) Context();
    self->ctx = guard.release();
    self->user_stream = user;
    if (user) self->stream_owner = stream;
}

Context *ctx_of(nb::handle ctx_obj) { return nb::inst_ptr<Context>(ctx_obj); }

// A new host Context, for calls given none.
nb::object new_host_context()
{
    nb::object cls = nb::module_::import_("meshmatrix._meshmatrix").attr("Context");
    return cls();
}

// ---- arrays out -----------------------------------------------------------------------------

// An allocation of the library's (mmx_mem_alloc) kept by a capsule, with its context.
struct Buf {
    nb::object ctx_obj;
    mmx_ctx *ctx;
    mmx_space space;
    void *p;
};

nb::capsule buf_capsule(Buf *b)
{
    return nb::capsule(b, [](void *q) noexcept {
        Buf *b = (Buf *) q;
        mmx_mem_free(b->ctx, b->space, b->p);
        delete b;
    });
}

Buf *buf_alloc(nb::handle ctx_obj, mmx_space space, size_t bytes)
{
    Context *c = ctx_of(ctx_obj);
    void *p = nullptr;
    // At least a few bytes: an empty result is still a valid array with a pointer.
    MMX_PY_CHECK(c->ctx, mmx_mem_alloc(c->ctx, space, bytes < 16 ? 16 : bytes, &p));
    return new Buf{nb::borrow(ctx_obj), c->ctx, space, p};
}

// A device array: a DLPack producer that synchronises as the file's comment says.
struct DeviceArray {
    nb::object arr;     // a nanobind ndarray (nb_ndarray) over the device memory
    nb::object ctx_obj; // the Context whose stream wrote it
};

nb::object device_array_dlpack(DeviceArray &d, nb::object stream, nb::kwargs kw)
{
    Context *c = ctx_of(d.ctx_obj);
    bool same = c->user_stream && !stream.is_none() && nb::isinstance<nb::int_>(stream) &&
                nb::cast<uintptr_t>(stream) == c->stream();
    if (!same) MMX_PY_CHECK(c->ctx, mmx_ctx_sync(c->ctx));
    return d.arr.attr("__dlpack__")(**kw);
}

// Wraps library memory as an array of `shape` and `dt`, owned by `owner`: numpy on the host,
// a DeviceArray on the device.
nb::object make_array(nb::handle ctx_obj, mmx_space space, const void *p,
                      std::vector<size_t> shape, nb::dlpack::dtype dt, nb::handle owner,
                      bool readonly)
{
    if (space == MMX_SPACE_HOST) {
        if (readonly)
            return nb::cast(nb::ndarray<nb::numpy, nb::ro>(p, shape.size(), shape.data(), owner,
                                                           nullptr, dt));
        return nb::cast(nb::ndarray<nb::numpy>((void *) p, shape.size(), shape.data(), owner,
                                               nullptr, dt));
    }
    Context *c = ctx_of(ctx_obj);
    // array_api: nanobind exports an object with __dlpack__ and __dlpack_device__ (with no
    // framework it exports a bare DLPack capsule, which has neither and can be consumed once).
    nb::ndarray<nb::array_api> a((void *) p, shape.size(), shape.data(), owner, nullptr, dt,
                                 nb::device::cuda::value, mmx_ctx_device(c->ctx));
    DeviceArray *d = new DeviceArray{nb::cast(a), nb::borrow(ctx_obj)};
    return nb::cast(d, nb::rv_policy::take_ownership);
}

nb::object buf_array(Buf *b, std::vector<size_t> shape, nb::dlpack::dtype dt)
{
    nb::object ctx_obj = b->ctx_obj;
    mmx_space space = b->space;
    void *p = b->p;
    nb::capsule cap = buf_capsule(b);
    return make_array(ctx_obj, space, p, std::move(shape), dt, cap, false);
}

// ---- arrays in ------------------------------------------------------------------------------

// An array handed in, in the context's space, C-contiguous, of the library's type: either the
// caller's memory read in place (no copy) or a converted copy owned here.
template <typename T> struct InArray {
    const T *p = nullptr;
    size_t n = 0;                  // elements
    std::vector<size_t> shape;
    nb::object keep;               // the caller's array, while it is read in place
    Buf *copy = nullptr;           // a converted copy (capsule-free: freed here)
    bool in_place = false;
    // A device array read in place by a context on a stream of its own: the producer may
    // reuse the memory on its stream as soon as the reference is dropped, so the library's
    // queued work on it must be done first.
    mmx_ctx *wait_for = nullptr;
    ~InArray()
    { // the sync first: `keep` is released after this body
        if (wait_for) (void) mmx_ctx_sync(wait_for);
        if (copy) {
            mmx_mem_free(copy->ctx, copy->space, copy->p);
            delete copy;
        }
    }
};

constexpr int kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13;

// Asks a DLPack producer for its tensor, on the context's stream where it lives on a GPU.
nb::ndarray<nb::ro> import_array(nb::handle obj, Context *c, const char *name)
{
    nb::object o = nb::borrow(obj);
    if (nb::hasattr(o, "__dlpack_device__") && !nb::hasattr(o, "__array_interface__")) {
        nb::object dev = o.attr("__dlpack_device__")();
        int type = nb::cast<int>(dev[0]);
        if (type == kDLCUDA || type == kDLCUDAManaged) {
            if (!c->on_device())
                raise_arg(MMX_ERR_SPACE, std::string(name) +
                                             " is a CUDA array: pass a CUDA Context "
                                             "(meshmatrix.Context(device=N)), or copy it to the "
                                             "host first");
            uintptr_t s = c->stream();
            o = o.attr("__dlpack__")("stream"_a = s ? (nb::object) nb::int_(s) : nb::none());
        }
    } else if (!nb::hasattr(o, "__dlpack__") && !nb::hasattr(o, "__array_interface__") &&
               !nb::hasattr(o, "__array__")) {
        o = nb::module_::import_("numpy").attr("asarray")(o);
    }
    nb::ndarray<nb::ro> a;
    if (!nb::try_cast(o, a)) {
        o = nb::module_::import_("numpy").attr("asarray")(o);
        if (!nb::try_cast(o, a))
            raise_arg(MMX_ERR_ARG, std::string(name) + " is not an array (numpy, DLPack)");
    }
    return a;
}

bool c_contiguous(const nb::ndarray<nb::ro> &a)
{
    int64_t expect = 1;
    for (size_t i = a.ndim(); i-- > 0;) {
        if (a.shape(i) != 1 && a.stride(i) != expect) return false;
        expect *= (int64_t) a.shape(i);
    }
    return true;
}

std::string dtype_name(nb::dlpack::dtype d)
{
    const char *k = d.code == (uint8_t) nb::dlpack::dtype_code::Float  ? "float"
                    : d.code == (uint8_t) nb::dlpack::dtype_code::Int  ? "int"
                    : d.code == (uint8_t) nb::dlpack::dtype_code::UInt ? "uint"
                    : d.code == (uint8_t) nb::dlpack::dtype_code::Bool ? "bool"
                                                                        : "other";
    return std::string(k) + std::to_string(d.bits);
}

// Where an element of a flat index lies, as Python writes it ("F[3, 1]").
std::string elem_name(const char *name, size_t i, const std::vector<size_t> &shape)
{
    std::string s = std::string(name) + "[";
    if (shape.size() == 2 && shape[1] > 0)
        s += std::to_string(i / shape[1]) + ", " + std::to_string(i % shape[1]);
    else
        s += std::to_string(i);
    return s + "]";
}

// Reads `obj` as an array of T (float or mmx_index) in c's space. The in-place case:
// already T, C-contiguous, in the context's space. Otherwise one pass into a copy: a strided
// host array gathered (numpy's ascontiguousarray), float64 -> float32 and int64 -> int32
// converted by the library (mmx_convert_f64 / mmx_convert_i64: the range checked, the first
// bad element named), other integer or float types through numpy first.
template <typename T>
void read_array(nb::handle obj, nb::handle ctx_obj, const char *name, InArray<T> &out)
{
    Context *c = ctx_of(ctx_obj);
    nb::ndarray<nb::ro> a = import_array(obj, c, name);
    bool dev = a.device_type() == kDLCUDA || a.device_type() == kDLCUDAManaged;
    if (!dev && a.device_type() != kDLCPU && a.device_type() != kDLCUDAHost)
        raise_arg(MMX_ERR_SPACE, std::string(name) + " lives on a device type " +
                                     std::to_string(a.device_type()) +
                                     " that meshmatrix cannot read (CPU or CUDA only)");
    if (dev && a.device_id() != mmx_ctx_device(c->ctx))
        raise_arg(MMX_ERR_SPACE, std::string(name) + " is on CUDA device " +
                                     std::to_string(a.device_id()) + ", the Context on device " +
                                     std::to_string(mmx_ctx_device(c->ctx)));
    out.shape.clear();
    out.n = 1;
    for (size_t i = 0; i < a.ndim(); i++) {
        out.shape.push_back(a.shape(i));
        out.n *= a.shape(i);
    }
    const bool want_float = std::is_same<T, float>::value;
    nb::dlpack::dtype dt = a.dtype();
    bool is_float = dt.code == (uint8_t) nb::dlpack::dtype_code::Float;
    bool is_int = dt.code == (uint8_t) nb::dlpack::dtype_code::Int ||
                  dt.code == (uint8_t) nb::dlpack::dtype_code::UInt;
    if (dt.lanes != 1 || (want_float ? !(is_float || is_int) : !is_int))
        raise_arg(MMX_ERR_ARG, std::string(name) + " has dtype " + dtype_name(dt) + ": " +
                                   (want_float ? "positions must be float32 or float64"
                                               : "indices must be int32 or int64"));
    bool contig = c_contiguous(a);
    if (dev && !contig)
        raise_arg(MMX_ERR_ARG, std::string(name) +
                                   " is a strided CUDA array: make it contiguous first "
                                   "(.contiguous() in PyTorch, cupy.ascontiguousarray)");
    mmx_space space = dev ? MMX_SPACE_DEVICE : MMX_SPACE_HOST;
    if (space == MMX_SPACE_HOST && c->on_device())
        raise_arg(MMX_ERR_SPACE, std::string(name) +
                                     " is a host array and the Context is on CUDA: pass a "
                                     "device array (torch, cupy) or use a host Context");
    bool exact = dt.bits == 32 && (want_float ? is_float
                                              : dt.code == (uint8_t) nb::dlpack::dtype_code::Int);
    if (exact && contig) { // in place
        out.p = (const T *) a.data();
        // The caller's object keeps the memory alive. A host array comes back as itself from
        // nb::cast; a device array was imported from a DLPack capsule, which nanobind cannot
        // export again without a copy: keep the producer (tensor, cupy array) instead.
        out.keep = dev ? nb::borrow(obj) : nb::cast(a);
        out.in_place = true;
        if (dev && !c->user_stream) out.wait_for = c->ctx;
        return;
    }
    // The host may need numpy to gather a strided array or to widen another type to 64 bits.
    // (A device array is read where it lies: nanobind cannot export an imported DLPack
    // capsule again without a copy, so no object is made of it here.)
    nb::object src; // the gathered or widened host copy: alive until converted below
    bool wide = dt.bits == 64 && (want_float ? is_float
                                             : dt.code == (uint8_t) nb::dlpack::dtype_code::Int);
    if (!dev && (!contig || !(exact || wide))) {
        nb::object np = nb::module_::import_("numpy");
        nb::object np_dt = exact ? np.attr(want_float ? "float32" : "int32")
                                 : np.attr(want_float ? "float64" : "int64");
        if (!want_float && dt.code == (uint8_t) nb::dlpack::dtype_code::UInt && dt.bits == 64) {
            // uint64 values beyond int64 would wrap: check the largest first.
            nb::object mx = np.attr("max")(np.attr("asarray")(obj), "initial"_a = 0);
            if (nb::cast<uint64_t>(mx) > (uint64_t) MMX_INDEX_MAX)
                raise_arg(MMX_ERR_OVERFLOW, std::string(name) + " holds " +
                                                nb::cast<std::string>(nb::str(mx)) +
                                                ", outside the index range [0, 2147483647]");
        }
        src = np.attr("ascontiguousarray")(np.attr("asarray")(obj), "dtype"_a = np_dt);
        a = nb::cast<nb::ndarray<nb::ro>>(src);
        dt = a.dtype();
        if (exact) {
            out.p = (const T *) a.data();
            out.keep = src;
            out.in_place = false;
            return;
        }
    } else if (dev && !(exact || wide)) {
        raise_arg(MMX_ERR_ARG, std::string(name) + " is a CUDA array of dtype " +
                                   dtype_name(dt) + ": pass " +
                                   (want_float ? "float32 or float64" : "int32 or int64"));
    }
    Buf *b = buf_alloc(ctx_obj, space, out.n * sizeof(T));
    out.copy = b;
    out.p = (const T *) b->p;
    // A converter on this context in the array's space: the context itself for device arrays,
    // a host context for host arrays (the library converts in its context's space).
    mmx_ctx *cv = c->ctx;
    mmx_ctx *tmp = nullptr;
    if (space == MMX_SPACE_HOST && c->on_device()) {
        MMX_PY_CHECK(nullptr, mmx_ctx_create(&tmp));
        cv = tmp;
    }
    mmx_status s;
    if (want_float)
        s = mmx_convert_f64(cv, (const double *) a.data(), out.n, (float *) b->p);
    else
        s = mmx_convert_i64(cv, (const int64_t *) a.data(), out.n, (mmx_index *) b->p);
    if (s != MMX_OK) {
        std::string detail = mmx_ctx_error(cv);
        if (tmp) mmx_ctx_free(tmp);
        // The library names the flat element ("element 7 ..."): name it as Python indexes it.
        size_t pos = detail.find("element ");
        if (pos != std::string::npos) {
            size_t i = std::strtoull(detail.c_str() + pos + 8, nullptr, 10);
            size_t end = detail.find(' ', pos + 8);
            detail = detail.substr(0, pos) + elem_name(name, i, out.shape) +
                     (end == std::string::npos ? "" : detail.substr(end));
        }
        raise_arg(s, std::string(want_float ? "mmx_convert_f64" : "mmx_convert_i64") + ": " +
                         detail);
    }
    if (tmp) mmx_ctx_free(tmp);
    out.keep = nb::object();
}

// ---- meshes ---------------------------------------------------------------------------------

struct Mesh {
    mmx_mesh *m = nullptr;
    nb::object ctx_obj; // the Context that made it: outlives the mesh
    mmx_index uniform = -1; // the common face order (0: mixed), found on first use of F
    ~Mesh() { mmx_mesh_free(m); }
    mmx_ctx *ctx() const { return ctx_of(ctx_obj)->ctx; }
};

nb::object wrap_mesh(mmx_mesh *m, nb::handle ctx_obj)
{
    Mesh *w = new Mesh();
    w->m = m;
    w->ctx_obj = nb::borrow(ctx_obj);
    return nb::cast(w, nb::rv_policy::take_ownership);
}

nb::object ctx_or_host(nb::handle ctx)
{
    return ctx.is_none() ? new_host_context() : nb::borrow(ctx);
}

const char *space_name(mmx_space s) { return s == MMX_SPACE_DEVICE ? "device" : "host"; }

nb::object mesh_from_arrays(nb::handle V, nb::handle F, nb::handle offsets, nb::handle ctx,
                            bool copy)
{
    nb::object ctx_obj = ctx_or_host(ctx);
    Context *c = ctx_of(ctx_obj);
    InArray<float> pos;
    InArray<mmx_index> verts, start;
    read_array<float>(V, ctx_obj, "V", pos);
    if (pos.shape.size() != 2 || pos.shape[1] != 3)
        raise_arg(MMX_ERR_ARG, "V must have the shape (nverts, 3)");
    read_array<mmx_index>(F, ctx_obj, "F", verts);
    mmx_mesh_arrays arr{};
    if ((size_t) pos.shape[0] > (size_t) MMX_INDEX_MAX)
        raise_arg(MMX_ERR_OVERFLOW, "V has more vertices than 32-bit indices hold");
    arr.nverts = (mmx_index) pos.shape[0];
    arr.pos = pos.p;
    arr.verts = verts.p;
    arr.space = c->on_device() ? MMX_SPACE_DEVICE : MMX_SPACE_HOST;
    if (offsets.is_none()) {
        if (verts.shape.size() != 2)
            raise_arg(MMX_ERR_ARG, "F must have the shape (nfaces, k), or be the flat corner "
                                   "list with offsets=");
        if (verts.shape[0] > (size_t) MMX_INDEX_MAX)
            raise_arg(MMX_ERR_OVERFLOW, "F has more faces than 32-bit indices hold");
        arr.nfaces = (mmx_index) verts.shape[0];
        arr.order = (int) verts.shape[1];
        if (arr.nfaces > 0 && arr.order < 3)
            raise_arg(MMX_ERR_MESH, "F has " + std::to_string(arr.order) +
                                        " columns: a face needs at least 3 vertices");
        if (arr.nfaces == 0) arr.order = 3;
    } else {
        read_array<mmx_index>(offsets, ctx_obj, "offsets", start);
        if (verts.shape.size() != 1 || start.shape.size() != 1 || start.n < 1)
            raise_arg(MMX_ERR_ARG, "with offsets=, F is the flat corner list (1-D) and "
                                   "offsets the nfaces + 1 face starts (1-D)");
        if (start.n - 1 > (size_t) MMX_INDEX_MAX)
            raise_arg(MMX_ERR_OVERFLOW, "offsets has more faces than 32-bit indices hold");
        arr.nfaces = (mmx_index) (start.n - 1);
        arr.order = 0;
        arr.start = start.p;
        if (start.n > 0 && !c->on_device()) {
            if ((size_t) start.p[start.n - 1] != verts.n)
                raise_arg(MMX_ERR_ARG, "offsets[-1] = " + std::to_string(start.p[start.n - 1]) +
                                           " but F has " + std::to_string(verts.n) +
                                           " corners");
        }
    }
    mmx_mesh *m = nullptr;
    if (copy) {
        MMX_PY_CHECK(c->ctx, mmx_mesh_from_arrays(c->ctx, &arr, &m));
        return wrap_mesh(m, ctx_obj);
    }
    if (!pos.in_place || !verts.in_place)
        raise_arg(MMX_ERR_ARG,
                  std::string("copy=False needs ") + (!pos.in_place ? "V" : "F") +
                      " as a C-contiguous " + (!pos.in_place ? "float32" : "int32") +
                      " array in the Context's space (it would be converted: pass copy=True)");
    // The mesh keeps both arrays alive; the library calls release once, from mmx_mesh_free
    // (which runs with the GIL held: in Mesh's destructor).
    nb::object *keep = new nb::object(nb::make_tuple(pos.keep, verts.keep));
    mmx_status s = mmx_mesh_wrap_arrays(c->ctx, &arr, 1,
                                        [](void *o) { delete (nb::object *) o; }, keep, &m);
    if (s != MMX_OK) {
        delete keep;
        raise_status(c->ctx, s, "mmx_mesh_wrap_arrays");
    }
    return wrap_mesh(m, ctx_obj);
}

nb::object mesh_load(const std::string &path, nb::handle ctx)
{
    nb::object ctx_obj = ctx_or_host(ctx);
    mmx_ctx *c = ctx_of(ctx_obj)->ctx;
    mmx_mesh *m = nullptr;
    MMX_PY_CHECK(c, mmx_mesh_read(c, path.c_str(), MMX_FORMAT_AUTO, &m));
    return wrap_mesh(m, ctx_obj);
}

nb::object mesh_shape(const std::string &spec, nb::handle ctx)
{
    nb::object ctx_obj = ctx_or_host(ctx);
    mmx_ctx *c = ctx_of(ctx_obj)->ctx;
    mmx_mesh *m = nullptr;
    MMX_PY_CHECK(c, mmx_mesh_shape(c, spec.c_str(), &m));
    return wrap_mesh(m, ctx_obj);
}

nb::object mesh_V(nb::handle self)
{
    Mesh &w = nb::cast<Mesh &>(self);
    if (!w.m->pos && mmx_mesh_nverts(w.m) > 0) return nb::none();
    static const float none[3] = {0, 0, 0}; // a mesh without vertices: an empty (0, 3) array
    if (!w.m->pos)
        return make_array(w.ctx_obj, MMX_SPACE_HOST, none, {0, 3}, nb::dtype<float>(), self,
                          true);
    return make_array(w.ctx_obj, w.m->space, w.m->pos, {(size_t) mmx_mesh_nverts(w.m), 3},
                      nb::dtype<float>(), self, false);
}

nb::object mesh_F(nb::handle self)
{
    Mesh &w = nb::cast<Mesh &>(self);
    mmx_ctx *c = w.ctx();
    if (w.uniform < 0) {
        if (w.m->M->order > 0) w.uniform = w.m->M->order;
        else MMX_PY_CHECK(c, mmx_mesh_uniform_order(c, w.m, &w.uniform));
    }
    if (w.uniform == 0 && mmx_mesh_nfaces(w.m) > 0)
        raise_arg(MMX_ERR_MESH, "mesh.F: the faces have several orders, so they make no "
                                "(nfaces, k) array: use mesh.faces() for (offsets, indices)");
    // Faces all of order k: the row indices are the (nfaces, k) array in either form (the
    // general form's columns are stored one after another). The mesh is not converted in
    // place: views of its offsets (faces()) may be alive.
    size_t k = w.uniform > 0 ? (size_t) w.uniform : 3;
    return make_array(w.ctx_obj, w.m->space, w.m->M->rowidx,
                      {(size_t) mmx_mesh_nfaces(w.m), k}, nb::dtype<int32_t>(), self, true);
}

// (offsets, indices): the general form's colptr and rowidx as they are; a reduced mesh's
// offsets are made (k f), its indices viewed.
nb::object mesh_faces(nb::handle self)
{
    Mesh &w = nb::cast<Mesh &>(self);
    const mmx_csc *M = w.m->M;
    nb::object idx = make_array(w.ctx_obj, w.m->space, M->rowidx, {(size_t) M->nnz},
                                nb::dtype<int32_t>(), self, true);
    if (M->order == 0) {
        nb::object off = make_array(w.ctx_obj, w.m->space, M->colptr, {(size_t) M->ncols + 1},
                                    nb::dtype<int32_t>(), self, true);
        return nb::make_tuple(off, idx);
    }
    std::vector<mmx_index> h((size_t) M->ncols + 1);
    for (size_t f = 0; f < h.size(); f++) h[f] = (mmx_index) (f * (size_t) M->order);
    Buf *b = buf_alloc(w.ctx_obj, w.m->space, h.size() * sizeof(mmx_index));
    MMX_PY_CHECK(b->ctx, mmx_mem_copy(b->ctx, b->p, w.m->space, h.data(), MMX_SPACE_HOST,
                                      h.size() * sizeof(mmx_index)));
    return nb::make_tuple(buf_array(b, {h.size()}, nb::dtype<int32_t>()), idx);
}

// The stats as a dict, built with the C API and keys interned once: this is the package's
// cheapest whole call, so its cost is the binding's per-call overhead (python/bench).
nb::object mesh_stats(Mesh &w)
{
    mmx_mesh_stats st;
    MMX_PY_CHECK(w.ctx(), mmx_mesh_stats_compute(w.ctx(), w.m, &st));
    static const char *const names[] = {
        "nverts", "nfaces", "nedges", "ncorners", "min_order", "max_order", "uniform_order",
        "boundary_edges", "boundary_loops", "nonmanifold_edges", "nonmanifold_verts",
        "inconsistent_edges", "repeated_faces", "isolated_verts", "components", "euler",
        "manifold", "oriented", "genus", "bbox_min", "bbox_max"};
    constexpr size_t nkeys = sizeof names / sizeof names[0];
    static PyObject *keys[nkeys]; // interned for the process's life
    if (!keys[0])
        for (size_t i = 0; i < nkeys; i++) keys[i] = PyUnicode_InternFromString(names[i]);
    const long long ints[] = {st.nverts, st.nfaces, st.nedges, (long long) st.ncorners,
                              st.min_order, st.max_order, st.uniform_order, st.boundary_edges,
                              st.boundary_loops, st.nonmanifold_edges, st.nonmanifold_verts,
                              st.inconsistent_edges, st.repeated_faces, st.isolated_verts,
                              st.components, (long long) st.euler};
    constexpr size_t nints = sizeof ints / sizeof ints[0];
    nb::object d = nb::steal(PyDict_New());
    auto put = [&](size_t k, PyObject *v) {
        if (!v || PyDict_SetItem(d.ptr(), keys[k], v) != 0) {
            Py_XDECREF(v);
            throw nb::python_error();
        }
        Py_DECREF(v);
    };
    for (size_t i = 0; i < nints; i++) put(i, PyLong_FromLongLong(ints[i]));
    put(nints, PyBool_FromLong(st.manifold));
    put(nints + 1, PyBool_FromLong(st.oriented));
    put(nints + 2, st.genus_valid ? PyLong_FromLong(st.genus) : (Py_INCREF(Py_None), Py_None));
    put(nints + 3, Py_BuildValue("(fff)", st.bbox_min[0], st.bbox_min[1], st.bbox_min[2]));
    put(nints + 4, Py_BuildValue("(fff)", st.bbox_max[0], st.bbox_max[1], st.bbox_max[2]));
    return d;
}

nb::dict mesh_validate(Mesh &w)
{
    mmx_mesh_validation r;
    MMX_PY_CHECK(w.ctx(), mmx_mesh_validate(w.ctx(), w.m, nullptr, &r));
    nb::dict d;
    d["valid"] = (bool) r.valid;
    d["problem"] = std::string(r.problem);
    d["degenerate_faces"] = r.degenerate_faces;
    return d;
}

void mesh_save(Mesh &w, const std::string &path)
{
    MMX_PY_CHECK(w.ctx(), mmx_mesh_write(w.ctx(), w.m, path.c_str(), MMX_FORMAT_AUTO));
}

nb::object mesh_to(Mesh &w, nb::handle ctx)
{
    Context *c = ctx_of(ctx);
    mmx_mesh *m = nullptr;
    MMX_PY_CHECK(c->ctx, mmx_mesh_copy(c->ctx, w.m, mmx_ctx_space(c->ctx), &m));
    return wrap_mesh(m, ctx);
}

nb::object mesh_triangulate(Mesh &w)
{
    mmx_mesh *m = nullptr;
    MMX_PY_CHECK(w.ctx(), mmx_mesh_triangulate(w.ctx(), w.m, &m));
    return wrap_mesh(m, w.ctx_obj);
}

// Texture coordinates as (values (n, 2), index (ncorners,)) host copies, or None.
nb::object mesh_uv(Mesh &w)
{
    if (!w.m->uv) return nb::none();
    mmx_mesh_uv *h = nullptr;
    MMX_PY_CHECK(w.ctx(), mmx_mesh_uv_copy(w.ctx(), w.m->uv, w.m->M->nnz, &h));
    nb::capsule cap(h, [](void *q) noexcept { mmx_mesh_uv_free((mmx_mesh_uv *) q); });
    size_t nv = (size_t) h->nvalues, nnz = (size_t) w.m->M->nnz;
    nb::object vals = nb::cast(nb::ndarray<nb::numpy, float>(h->values, {nv, 2}, cap));
    nb::object idx = nb::cast(nb::ndarray<nb::numpy, int32_t>(h->index, {nnz}, cap));
    return nb::make_tuple(vals, idx);
}

// ---- queries and operators ------------------------------------------------------------------

mmx_query_kind parse_query(mmx_ctx *c, const std::string &name)
{
    mmx_query_kind k;
    MMX_PY_CHECK(c, mmx_query_parse(c, name.c_str(), &k));
    return k;
}

nb::object mesh_query(Mesh &w, const std::string &name)
{
    mmx_ctx *c = w.ctx();
    mmx_csr *A = nullptr;
    MMX_PY_CHECK(c, mmx_query(c, w.m, nullptr, parse_query(c, name), &A));
    nb::capsule cap(A, [](void *q) noexcept { mmx_csr_free((mmx_csr *) q); });
    nb::object idx = make_array(w.ctx_obj, A->space, A->colidx, {(size_t) A->nnz},
                                nb::dtype<int32_t>(), cap, true);
    if (A->order == 0) {
        nb::object ptr = make_array(w.ctx_obj, A->space, A->rowptr, {(size_t) A->nrows + 1},
                                    nb::dtype<int32_t>(), cap, true);
        return nb::make_tuple(ptr, idx);
    }
    std::vector<mmx_index> h((size_t) A->nrows + 1);
    for (size_t r = 0; r < h.size(); r++) h[r] = (mmx_index) (r * (size_t) A->order);
    Buf *b = buf_alloc(w.ctx_obj, A->space, h.size() * sizeof(mmx_index));
    MMX_PY_CHECK(c, mmx_mem_copy(c, b->p, A->space, h.data(), MMX_SPACE_HOST,
                                 h.size() * sizeof(mmx_index)));
    return nb::make_tuple(buf_array(b, {h.size()}, nb::dtype<int32_t>()), idx);
}

// (shape, indptr, indices, data) of a CSC operator (the Python side makes scipy's matrix).
nb::object mesh_operator(Mesh &w, const std::string &name)
{
    mmx_ctx *c = w.ctx();
    mmx_operator_kind k;
    MMX_PY_CHECK(c, mmx_operator_parse(c, name.c_str(), &k));
    mmx_csc *A = nullptr;
    MMX_PY_CHECK(c, mmx_operator(c, w.m, nullptr, k, &A));
    nb::capsule cap(A, [](void *q) noexcept { mmx_csc_free((mmx_csc *) q); });
    nb::object idx = make_array(w.ctx_obj, A->space, A->rowidx, {(size_t) A->nnz},
                                nb::dtype<int32_t>(), cap, true);
    nb::object x = make_array(w.ctx_obj, A->space, A->x, {(size_t) A->nnz},
                              nb::dtype<float>(), cap, true);
    nb::object ptr;
    if (A->order == 0) {
        ptr = make_array(w.ctx_obj, A->space, A->colptr, {(size_t) A->ncols + 1},
                         nb::dtype<int32_t>(), cap, true);
    } else {
        std::vector<mmx_index> h((size_t) A->ncols + 1);
        for (size_t j = 0; j < h.size(); j++) h[j] = (mmx_index) (j * (size_t) A->order);
        Buf *b = buf_alloc(w.ctx_obj, A->space, h.size() * sizeof(mmx_index));
        MMX_PY_CHECK(c, mmx_mem_copy(c, b->p, A->space, h.data(), MMX_SPACE_HOST,
                                     h.size() * sizeof(mmx_index)));
        ptr = buf_array(b, {h.size()}, nb::dtype<int32_t>());
    }
    return nb::make_tuple(nb::make_tuple(A->nrows, A->ncols), ptr, idx, x);
}

// ---- geometry -------------------------------------------------------------------------------

nb::object mesh_normals(Mesh &w, const std::string &weight)
{
    mmx_ctx *c = w.ctx();
    mmx_normal_weight wt;
    MMX_PY_CHECK(c, mmx_normal_weight_parse(c, weight.c_str(), &wt));
    size_t n = (size_t) mmx_mesh_nverts(w.m);
    Buf *b = buf_alloc(w.ctx_obj, w.m->space, n * 3 * sizeof(float));
    nb::object out = buf_array(b, {n, 3}, nb::dtype<float>());
    MMX_PY_CHECK(c, mmx_vertex_normals(c, w.m, wt, (float *) b->p));
    return out;
}

nb::object mesh_face_normals(Mesh &w)
{
    mmx_ctx *c = w.ctx();
    size_t n = (size_t) mmx_mesh_nfaces(w.m);
    Buf *bn = buf_alloc(w.ctx_obj, w.m->space, n * 3 * sizeof(float));
    nb::object normals = buf_array(bn, {n, 3}, nb::dtype<float>());
    Buf *ba = buf_alloc(w.ctx_obj, w.m->space, n * sizeof(float));
    nb::object areas = buf_array(ba, {n}, nb::dtype<float>());
    MMX_PY_CHECK(c, mmx_face_normals(c, w.m, (float *) bn->p, (float *) ba->p));
    return nb::make_tuple(normals, areas);
}

nb::object mesh_smooth(Mesh &w, const std::string &method, int iterations, float step, float mu,
                       bool fix_boundary, const std::string &path, bool report)
{
    mmx_ctx *c = w.ctx();
    mmx_smooth_method meth;
    MMX_PY_CHECK(c, mmx_smooth_method_parse(c, method.c_str(), &meth));
    mmx_smooth_options o = mmx_smooth_defaults(meth);
    if (iterations >= 0) o.iterations = iterations;
    o.step = step;
    o.mu = mu;
    o.fix_boundary = fix_boundary;
    if (path == "assembled") o.path = MMX_SMOOTH_ASSEMBLED;
    else if (path == "patch") o.path = MMX_SMOOTH_PATCH;
    else if (path == "matrix-free") o.path = MMX_SMOOTH_MATRIX_FREE;
    else raise_arg(MMX_ERR_ARG, "smooth: path '" + path +
                                    "' is not one of assembled, patch, matrix-free");
    mmx_mesh *m = nullptr;
    MMX_PY_CHECK(c, mmx_mesh_copy(c, w.m, w.m->space, &m));
    nb::object res = wrap_mesh(m, w.ctx_obj);
    mmx_smooth_report r;
    // In place in the copy: its positions are its own.
    MMX_PY_CHECK(c, mmx_smooth(c, m, &o, m->pos, &r));
    if (!report) return res;
    nb::dict d;
    d["iterations"] = r.iterations;
    d["step"] = r.step;
    d["mu"] = r.mu;
    d["cg_iterations"] = r.cg_iterations;
    d["cg_residual"] = r.cg_residual;
    d["cg_converged"] = (bool) r.cg_converged;
    d["fixed"] = r.fixed;
    d["ms"] = r.ms;
    return nb::make_tuple(res, d);
}

nb::object mesh_delaunay(Mesh &w, bool report)
{
    mmx_ctx *c = w.ctx();
    mmx_mesh *m = nullptr;
    mmx_delaunay_report *r = new mmx_delaunay_report();
    mmx_status s = mmx_delaunay_flip(c, w.m, &m, r);
    if (s != MMX_OK) {
        delete r;
        raise_status(c, s, "mmx_delaunay_flip");
    }
    nb::object res = wrap_mesh(m, w.ctx_obj);
    nb::dict d;
    d["rounds"] = r->rounds;
    d["flips"] = r->flips;
    d["remaining"] = r->remaining;
    delete r;
    return report ? nb::make_tuple(res, d) : res;
}

nb::object mesh_remesh(Mesh &w, double target_length, int iterations, double feature_angle,
                       bool report)
{
    mmx_ctx *c = w.ctx();
    mmx_remesh_options o = mmx_remesh_defaults();
    o.target_length = target_length;
    if (iterations >= 0) o.iterations = iterations;
    o.feature_angle = feature_angle;
    mmx_mesh *m = nullptr;
    mmx_remesh_report *r = new mmx_remesh_report();
    mmx_status s = mmx_remesh(c, w.m, &o, &m, r);
    if (s != MMX_OK) {
        delete r;
        raise_status(c, s, "mmx_remesh");
    }
    nb::object res = wrap_mesh(m, w.ctx_obj);
    nb::dict d;
    d["target_length"] = r->target_length;
    d["iterations"] = r->iterations;
    d["feature_edges"] = r->feature_edges;
    d["ms"] = r->ms;
    delete r;
    return report ? nb::make_tuple(res, d) : res;
}

nb::object mesh_simplify(Mesh &w, mmx_index faces, double ratio, double max_error,
                         double feature_angle, bool report)
{
    mmx_ctx *c = w.ctx();
    mmx_simplify_options o = mmx_simplify_defaults();
    o.target_faces = faces;
    o.ratio = ratio;
    o.max_error = max_error;
    o.feature_angle = feature_angle;
    mmx_mesh *m = nullptr;
    mmx_simplify_report r{};
    mmx_status s = mmx_simplify(c, w.m, &o, &m, &r);
    if (s != MMX_OK) raise_status(c, s, "mmx_simplify");
    nb::object res = wrap_mesh(m, w.ctx_obj);
    if (!report) return res;
    nb::dict d;
    d["faces_in"] = r.faces_in;
    d["faces_out"] = r.faces_out;
    d["verts_in"] = r.verts_in;
    d["verts_out"] = r.verts_out;
    d["target_faces"] = r.target_faces;
    d["locked_verts"] = r.locked_verts;
    d["rounds"] = r.rounds;
    d["collapses"] = r.collapses;
    d["diagonal"] = r.diagonal;
    d["max_error"] = r.max_error;
    d["ms"] = r.ms;
    return nb::make_tuple(res, d);
}

// ---- subdivision ----------------------------------------------------------------------------

template <typename E>
E parse_choice(const std::string &what, const std::string &v,
               std::initializer_list<std::pair<const char *, E>> choices)
{
    std::string names;
    for (auto &c : choices) {
        if (v == c.first) return c.second;
        names += names.empty() ? "" : ", ";
        names += c.first;
    }
    raise_arg(MMX_ERR_ARG, what + " '" + v + "' is not one of " + names);
}

mmx_subdiv_options subdiv_opts(const std::string &boundary, const std::string &crease_method,
                               bool keep_holes, const std::string &fvar, bool limit,
                               const std::string &path, const std::string &triangles)
{
    mmx_subdiv_options o{};
    o.boundary = parse_choice<mmx_boundary>(
        "boundary", boundary,
        {{"mesh", MMX_BOUNDARY_FROM_MESH}, {"edge-only", MMX_BOUNDARY_EDGE_ONLY},
         {"edge-and-corner", MMX_BOUNDARY_EDGE_AND_CORNER}, {"none", MMX_BOUNDARY_NONE}});
    o.crease = parse_choice<mmx_crease_method>(
        "crease_method", crease_method,
        {{"mesh", MMX_CREASE_FROM_MESH}, {"uniform", MMX_CREASE_UNIFORM},
         {"chaikin", MMX_CREASE_CHAIKIN}});
    o.holes = keep_holes ? MMX_HOLES_KEEP : MMX_HOLES_REMOVE;
    o.fvar = parse_choice<mmx_fvar_mode>(
        "fvar", fvar,
        {{"mesh", MMX_FVAR_FROM_MESH}, {"linear", MMX_FVAR_LINEAR_ALL},
         {"smooth", MMX_FVAR_SMOOTH}, {"corners-only", MMX_FVAR_CORNERS_ONLY},
         {"boundaries", MMX_FVAR_BOUNDARIES}});
    o.limit = limit;
    o.path = parse_choice<mmx_subdiv_path>("path", path,
                                           {{"auto", MMX_SUBDIV_PATH_AUTO},
                                            {"fused", MMX_SUBDIV_PATH_FUSED},
                                            {"algebraic", MMX_SUBDIV_PATH_ALGEBRAIC}});
    o.triangles = parse_choice<mmx_triangle_rule>("triangles", triangles,
                                                  {{"mesh", MMX_TRIANGLES_FROM_MESH},
                                                   {"catmark", MMX_TRIANGLES_CATMARK},
                                                   {"smooth", MMX_TRIANGLES_SMOOTH}});
    return o;
}

// Host copies of (items, sharpness) for creases ((m, 2) edges) or corners ((m,) vertices): the
// sharpness one value for all or one per item.
void read_sharp(nb::handle spec, const char *what, size_t width, std::vector<mmx_index> &items,
                std::vector<float> &sharp)
{
    nb::object np = nb::module_::import_("numpy");
    if (!nb::isinstance<nb::tuple>(spec) || nb::len(spec) != 2)
        raise_arg(MMX_ERR_ARG, std::string(what) + " must be a pair (" +
                                   (width == 2 ? "edges (m, 2)" : "vertices (m,)") +
                                   ", sharpness: one value or m)");
    nb::object host = new_host_context();
    InArray<mmx_index> it;
    read_array<mmx_index>(spec[0], host, what, it);
    if (width == 2 ? (it.shape.size() != 2 || it.shape[1] != 2) : it.shape.size() != 1)
        raise_arg(MMX_ERR_ARG, std::string(what) + "[0] must have the shape " +
                                   (width == 2 ? "(m, 2)" : "(m,)"));
    size_t m = it.n / width;
    items.assign(it.p, it.p + it.n);
    nb::object s = np.attr("ravel")(np.attr("asarray")(spec[1], "dtype"_a = np.attr("float32")));
    InArray<float> sv;
    read_array<float>(s, host, what, sv);
    if (sv.n == 1) sharp.assign(m, sv.p[0]);
    else if (sv.n == m) sharp.assign(sv.p, sv.p + m);
    else
        raise_arg(MMX_ERR_ARG, std::string(what) + ": " + std::to_string(sv.n) +
                                   " sharpness values for " + std::to_string(m) + " items");
}

// The mesh to refine: `w`'s own, or a copy carrying the creases, corners, holes and texture
// coordinates given (as tags and uv; the caller's mesh is left as it is).
mmx_mesh *with_extras(Mesh &w, nb::handle creases, nb::handle corners, nb::handle holes,
                      nb::handle uv, mmx_mesh **owned)
{
    *owned = nullptr;
    if (creases.is_none() && corners.is_none() && holes.is_none() && uv.is_none()) return w.m;
    mmx_ctx *c = w.ctx();
    mmx_mesh *m = nullptr;
    MMX_PY_CHECK(c, mmx_mesh_copy(c, w.m, w.m->space, &m));
    *owned = m;
    mmx_mesh_tags *t = nullptr;
    mmx_status s = mmx_mesh_tags_parse(c, m, &t);
    if (s != MMX_OK) raise_status(c, s, "mmx_mesh_tags_parse");
    std::unique_ptr<mmx_mesh_tags, void (*)(mmx_mesh_tags *)> guard(t, mmx_mesh_tags_free);
    mmx_mesh_tags nt = *t;
    std::vector<mmx_index> ce, co, ho;
    std::vector<float> cs, cos;
    if (!creases.is_none()) {
        read_sharp(creases, "creases", 2, ce, cs);
        nt.ncreases = (mmx_index) cs.size();
        nt.crease_verts = ce.data();
        nt.crease_sharpness = cs.data();
    }
    if (!corners.is_none()) {
        read_sharp(corners, "corners", 1, co, cos);
        nt.ncorners = (mmx_index) cos.size();
        nt.corner_verts = co.data();
        nt.corner_sharpness = cos.data();
    }
    if (!holes.is_none()) {
        nb::object host = new_host_context();
        InArray<mmx_index> h;
        read_array<mmx_index>(holes, host, "holes", h);
        ho.assign(h.p, h.p + h.n);
        nt.nholes = (mmx_index) ho.size();
        nt.holes = ho.data();
    }
    MMX_PY_CHECK(c, mmx_mesh_set_tags(c, m, &nt));
    if (!uv.is_none()) {
        if (!nb::isinstance<nb::tuple>(uv) || nb::len(uv) != 2)
            raise_arg(MMX_ERR_ARG, "uv must be a pair (values (n, 2), index (ncorners,))");
        nb::object host = new_host_context();
        InArray<float> vals;
        InArray<mmx_index> idx;
        read_array<float>(uv[0], host, "uv values", vals);
        read_array<mmx_index>(uv[1], host, "uv index", idx);
        if (vals.shape.size() != 2 || vals.shape[1] != 2)
            raise_arg(MMX_ERR_ARG, "uv values must have the shape (n, 2)");
        if (idx.n != (size_t) m->M->nnz)
            raise_arg(MMX_ERR_ARG, "uv index has " + std::to_string(idx.n) +
                                       " entries, the mesh " + std::to_string(m->M->nnz) +
                                       " corners (one per corner, face by face)");
        size_t nv = vals.shape[0];
        for (size_t i = 0; i < idx.n; i++)
            if (idx.p[i] < 0 || (size_t) idx.p[i] >= nv)
                raise_arg(MMX_ERR_MESH, "uv index[" + std::to_string(i) + "] = " +
                                            std::to_string(idx.p[i]) + " is not in [0, " +
                                            std::to_string(nv) + ")");
        mmx_mesh_uv *u = (mmx_mesh_uv *) calloc(1, sizeof *u);
        if (!u) raise_arg(MMX_ERR_NOMEM, "uv: out of memory");
        u->values = (float *) malloc(nv * 2 * sizeof(float) + 1);
        u->index = (mmx_index *) malloc(idx.n * sizeof(mmx_index) + 1);
        u->nvalues = (mmx_index) nv;
        u->space = MMX_SPACE_HOST;
        if (!u->values || !u->index) {
            mmx_mesh_uv_free(u);
            raise_arg(MMX_ERR_NOMEM, "uv: out of memory");
        }
        memcpy(u->values, vals.p, nv * 2 * sizeof(float));
        memcpy(u->index, idx.p, idx.n * sizeof(mmx_index));
        mmx_mesh_uv_free(m->uv);
        m->uv = u;
    }
    return m;
}

struct MeshGuard {
    mmx_mesh *m = nullptr;
    ~MeshGuard() { mmx_mesh_free(m); }
};

mmx_scheme parse_scheme(const std::string &name)
{
    mmx_scheme s;
    if (mmx_scheme_parse(name.c_str(), &s) != MMX_OK)
        raise_arg(MMX_ERR_ARG, "scheme '" + name +
                                   "' is not one of loop, sqrt3, catmull-clark, bilinear");
    return s;
}

nb::object subdivide(Mesh &w, const std::string &scheme, int levels, const std::string &boundary,
                     nb::handle creases, nb::handle corners, nb::handle holes, bool keep_holes,
                     nb::handle uv, const std::string &fvar, bool limit, const std::string &path,
                     const std::string &crease_method, const std::string &triangles)
{
    mmx_ctx *c = w.ctx();
    mmx_scheme sch = parse_scheme(scheme);
    mmx_subdiv_options o =
        subdiv_opts(boundary, crease_method, keep_holes, fvar, limit, path, triangles);
    MeshGuard g;
    mmx_mesh *in = with_extras(w, creases, corners, holes, uv, &g.m);
    mmx_mesh *m = nullptr;
    MMX_PY_CHECK(c, mmx_subdivide(c, sch, in, levels, &o, &m));
    return wrap_mesh(m, w.ctx_obj);
}

struct SubdivPlan {
    mmx_subdiv_plan *p = nullptr;
    nb::object ctx_obj;
    mmx_index cn = 0, n = 0, nf = 0;
    ~SubdivPlan() { mmx_subdiv_plan_free(p); }
};

nb::object plan_create(Mesh &w, const std::string &scheme, int levels,
                       const std::string &boundary)
{
    mmx_ctx *c = w.ctx();
    mmx_subdiv_options o = subdiv_opts(boundary, "mesh", false, "mesh", false, "auto", "mesh");
    SubdivPlan *p = new SubdivPlan();
    p->ctx_obj = w.ctx_obj;
    mmx_status s = mmx_subdiv_plan_create(c, parse_scheme(scheme), w.m, levels, &o, &p->p);
    if (s != MMX_OK) {
        delete p;
        raise_status(c, s, "mmx_subdiv_plan_create");
    }
    mmx_subdiv_plan_sizes(p->p, &p->cn, &p->n, &p->nf);
    return nb::cast(p, nb::rv_policy::take_ownership);
}

nb::object plan_eval(SubdivPlan &p, nb::handle V, nb::handle out)
{
    Context *c = ctx_of(p.ctx_obj);
    InArray<float> in;
    read_array<float>(V, p.ctx_obj, "V", in);
    if (in.shape.size() != 2 || in.shape[1] != 3 || in.shape[0] != (size_t) p.cn)
        raise_arg(MMX_ERR_ARG, "plan.eval: V must have the shape (" + std::to_string(p.cn) +
                                   ", 3): the control mesh's vertices");
    nb::object res;
    float *dst;
    if (out.is_none()) {
        Buf *b = buf_alloc(p.ctx_obj, mmx_ctx_space(c->ctx), (size_t) p.n * 3 * sizeof(float));
        res = buf_array(b, {(size_t) p.n, 3}, nb::dtype<float>());
        dst = (float *) b->p;
    } else {
        InArray<float> o;
        read_array<float>(out, p.ctx_obj, "out", o);
        if (!o.in_place || o.shape.size() != 2 || o.shape[0] != (size_t) p.n || o.shape[1] != 3)
            raise_arg(MMX_ERR_ARG, "plan.eval: out must be a C-contiguous float32 array of "
                                   "shape (" + std::to_string(p.n) +
                                       ", 3) in the Context's space");
        dst = (float *) o.p;
        res = nb::borrow(out);
    }
    MMX_PY_CHECK(c->ctx, mmx_subdiv_plan_eval(p.p, in.p, dst));
    return res;
}

nb::object plan_mesh(SubdivPlan &p, nb::handle pos)
{
    Context *c = ctx_of(p.ctx_obj);
    mmx_mesh *m = nullptr;
    if (pos.is_none()) {
        MMX_PY_CHECK(c->ctx, mmx_subdiv_plan_mesh(p.p, nullptr, &m));
    } else {
        InArray<float> in;
        read_array<float>(pos, p.ctx_obj, "pos", in);
        if (in.n != (size_t) p.n * 3)
            raise_arg(MMX_ERR_ARG, "plan.mesh: pos must have the shape (" + std::to_string(p.n) +
                                       ", 3)");
        MMX_PY_CHECK(c->ctx, mmx_subdiv_plan_mesh(p.p, in.p, &m));
    }
    return wrap_mesh(m, p.ctx_obj);
}

int cuda_device_count()
{
    mmx_ctx *c = nullptr;
    if (mmx_ctx_create(&c) != MMX_OK) return 0;
    int n = 0;
    mmx_cuda_device_count(c, &n);
    mmx_ctx_free(c);
    return n;
}

} // namespace

NB_MODULE(_meshmatrix, m)
{
    m.doc() = "meshmatrix's extension module; use the package meshmatrix.";

    nb::register_exception_translator([](const std::exception_ptr &p, void *) {
        try {
            std::rethrow_exception(p);
        } catch (const MmxError &e) {
            nb::object mk = nb::module_::import_("meshmatrix._errors").attr("_from_status");
            nb::object exc = mk((int) e.status, e.what());
            PyErr_SetObject((PyObject *) Py_TYPE(exc.ptr()), exc.ptr());
        }
    });

    nb::class_<Context>(m, "Context",
                        "An execution context: the host (device=None), or CUDA device `device` "
                        "on a stream of the library's own (stream=None) or on the caller's "
                        "(an int cudaStream_t, or an object with cuda_stream, ptr or "
                        "__cuda_stream__: torch.cuda.Stream, cupy.cuda.Stream). Meshes, plans "
                        "and arrays made through it keep it alive.")
        .def("__init__", &context_init, "device"_a = nb::none(), "stream"_a = nb::none())
        .def_prop_ro("backend",
                     [](Context &c) {
                         return mmx_ctx_backend(c.ctx) == MMX_BACKEND_CUDA ? "cuda" : "host";
                     })
        .def_prop_ro("device",
                     [](Context &c) -> nb::object {
                         int d = mmx_ctx_device(c.ctx);
                         return d < 0 ? nb::none() : nb::cast(d);
                     })
        .def_prop_ro("stream", &Context::stream,
                     "The cudaStream_t the library queues its work on (0 on the host).")
        .def_prop_ro("user_stream", [](Context &c) { return c.user_stream; },
                     "True when the context runs on the caller's stream.")
        .def("sync", [](Context &c) { MMX_PY_CHECK(c.ctx, mmx_ctx_sync(c.ctx)); },
             "Waits for the work queued on the context's stream (mmx_ctx_sync).")
        .def("__repr__", [](Context &c) {
            if (mmx_ctx_backend(c.ctx) != MMX_BACKEND_CUDA) return std::string("Context(host)");
            return "Context(device=" + std::to_string(mmx_ctx_device(c.ctx)) +
                   (c.user_stream ? ", stream=caller's)" : ")");
        });

    nb::class_<DeviceArray>(m, "DeviceArray",
                            "An array in CUDA memory owned by the library, without a copy: a "
                            "DLPack producer (torch.from_dlpack, cupy.from_dlpack).")
        .def("__dlpack__", &device_array_dlpack, "stream"_a = nb::none(), "kwargs"_a)
        .def("__dlpack_device__",
             [](DeviceArray &d) { return d.arr.attr("__dlpack_device__")(); })
        .def_prop_ro("shape", [](DeviceArray &d) { return d.arr.attr("shape"); })
        .def_prop_ro("dtype", [](DeviceArray &d) { return d.arr.attr("dtype"); })
        .def_prop_ro("context", [](DeviceArray &d) { return d.ctx_obj; })
        .def("__repr__", [](DeviceArray &d) {
            return "DeviceArray(shape=" + nb::cast<std::string>(nb::str(d.arr.attr("shape"))) +
                   ")";
        });

    nb::class_<Mesh>(m, "Mesh", "A polygon mesh: its mesh matrix (faces as columns) and float32 "
                                "positions, on the host or on a CUDA device.")
        .def_prop_ro("nverts", [](Mesh &w) { return mmx_mesh_nverts(w.m); })
        .def_prop_ro("nfaces", [](Mesh &w) { return mmx_mesh_nfaces(w.m); })
        .def_prop_ro("ncorners", [](Mesh &w) { return w.m->M->nnz; })
        .def_prop_ro("order", [](Mesh &w) { return w.m->M->order; },
                     "k when the mesh is stored in the reduced form (every face of order k), "
                     "else 0.")
        .def_prop_ro("space", [](Mesh &w) { return space_name(w.m->space); })
        .def_prop_ro("context", [](Mesh &w) { return w.ctx_obj; })
        .def_prop_ro("V", &mesh_V,
                     "The positions, (nverts, 3) float32, a view of the mesh's own array "
                     "(numpy on the host, a DeviceArray on CUDA), or None. Writing them moves "
                     "the vertices.")
        .def_prop_ro("F", &mesh_F,
                     "The faces as a read-only (nfaces, k) int32 view, when every face has k "
                     "corners; raises MeshError for mixed orders (use faces()).")
        .def("faces", &mesh_faces,
             "(offsets, indices): face f is indices[offsets[f]:offsets[f+1]], int32; views of "
             "the mesh matrix (offsets made for a reduced mesh).")
        .def_prop_ro("tags", [](Mesh &w) -> nb::object {
            return w.m->tags ? nb::cast(std::string(w.m->tags)) : nb::none();
        }, "The OBJ 't' lines (creases, corners, holes...) as text, or None.")
        .def_prop_ro("uv", &mesh_uv,
                     "Texture coordinates (values (n, 2) float32, index (ncorners,) int32: "
                     "one per corner in face order), host copies, or None.")
        .def("stats", &mesh_stats, "Counts and topology (mmx_mesh_stats_compute) as a dict.")
        .def("validate", &mesh_validate, "mmx_mesh_validate's report: valid, problem.")
        .def("save", &mesh_save, "path"_a,
             "Writes the mesh (OBJ, OFF, PLY, STL by the extension).")
        .def("to", &mesh_to, "ctx"_a, "A deep copy made by (and in the space of) ctx.")
        .def("triangulate", &mesh_triangulate, "Every face cut into triangles (a new mesh).")
        .def("query", &mesh_query, "kind"_a)
        .def("_operator", &mesh_operator, "kind"_a)
        .def("normals", &mesh_normals, "weight"_a = "area")
        .def("face_normals", &mesh_face_normals)
        .def("__repr__", [](Mesh &w) {
            return "Mesh(nverts=" + std::to_string(mmx_mesh_nverts(w.m)) +
                   ", nfaces=" + std::to_string(mmx_mesh_nfaces(w.m)) + ", space=" +
                   space_name(w.m->space) + ")";
        });

    nb::class_<SubdivPlan>(m, "SubdivPlan",
                           "A subdivision's topology refined once; eval(V) maps new control "
                           "positions to the last level's.")
        .def_prop_ro("control_nverts", [](SubdivPlan &p) { return p.cn; })
        .def_prop_ro("nverts", [](SubdivPlan &p) { return p.n; })
        .def_prop_ro("nfaces", [](SubdivPlan &p) { return p.nf; })
        .def_prop_ro("context", [](SubdivPlan &p) { return p.ctx_obj; })
        .def("eval", &plan_eval, "V"_a, "out"_a = nb::none())
        .def("mesh", &plan_mesh, "pos"_a = nb::none());

    m.def("_from_arrays", &mesh_from_arrays, "V"_a, "F"_a, "offsets"_a = nb::none(),
          "ctx"_a = nb::none(), "copy"_a = true);
    m.def("_load", &mesh_load, "path"_a, "ctx"_a = nb::none());
    m.def("_shape", &mesh_shape, "spec"_a, "ctx"_a = nb::none());
    m.def("_subdivide", &subdivide, "mesh"_a, "scheme"_a, "levels"_a, "boundary"_a,
          "creases"_a.none(), "corners"_a.none(), "holes"_a.none(), "keep_holes"_a, "uv"_a.none(),
          "fvar"_a, "limit"_a, "path"_a, "crease_method"_a, "triangles"_a);
    m.def("_plan", &plan_create, "mesh"_a, "scheme"_a, "levels"_a, "boundary"_a);
    m.def("_smooth", &mesh_smooth, "mesh"_a, "method"_a, "iterations"_a, "step"_a, "mu"_a,
          "fix_boundary"_a, "path"_a, "report"_a);
    m.def("_delaunay", &mesh_delaunay, "mesh"_a, "report"_a);
    m.def("_remesh", &mesh_remesh, "mesh"_a, "target_length"_a, "iterations"_a,
          "feature_angle"_a, "report"_a);
    m.def("_simplify", &mesh_simplify, "mesh"_a, "faces"_a, "ratio"_a, "max_error"_a,
          "feature_angle"_a, "report"_a);
    m.def("has_cuda", []() { return (bool) mmx_has_cuda(); },
          "Whether the library was built with the CUDA backend.");
    m.def("cuda_device_count", &cuda_device_count, "Usable CUDA devices (0 without).");
}
