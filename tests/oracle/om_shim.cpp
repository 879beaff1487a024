// tests/oracle/om_shim.cpp: OpenMesh's uniform subdividers (Sqrt3T, LoopT, CatmullClarkT)
// and its Jacobi Laplace smoother behind the oracle's C API, on meshes with double points.
//
// OpenMesh prints add_face's complaints ("complex edge", "complex vertex") on its omerr
// stream; it is silenced while the mesh is built, and a refused face is reported in err instead.
// GCC 12 reports a false -Wmaybe-uninitialized inside OpenMesh's PropertyT<Vec3d>::push_back
// (a value-initialized T() inlined into std::vector), at a location in the system headers that
// the usual system-header silence does not cover. Off for this file only. Where OpenMesh's
// headers are not system headers at all (the GPU machine finds them through CPATH, and meson
// then drops its -isystem), they also leave parameters unused: that is off around them.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#ifndef _USE_MATH_DEFINES
#define _USE_MATH_DEFINES // M_PI in OpenMesh's subdividers
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <new>
#include <vector>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif
#include <OpenMesh/Core/Mesh/PolyMesh_ArrayKernelT.hh>
#include <OpenMesh/Core/Mesh/TriMesh_ArrayKernelT.hh>
#include <OpenMesh/Core/System/omstream.hh>
#include <OpenMesh/Tools/Subdivider/Uniform/CatmullClarkT.hh>
#include <OpenMesh/Tools/Subdivider/Uniform/LoopT.hh>
#include <OpenMesh/Tools/Smoother/JacobiLaplaceSmootherT.hh>
#include <OpenMesh/Tools/Subdivider/Uniform/Sqrt3T.hh>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include "oracle_internal.h"

namespace {

using Clock = std::chrono::steady_clock;

struct DoubleTraits : public OpenMesh::DefaultTraits {
    typedef OpenMesh::Vec3d Point;
    typedef OpenMesh::Vec3d Normal;
};
using TriMesh = OpenMesh::TriMesh_ArrayKernelT<DoubleTraits>;
using PolyMesh = OpenMesh::PolyMesh_ArrayKernelT<DoubleTraits>;

// Silences OpenMesh's error stream for the lifetime of the object.
struct QuietOmerr {
    bool was;
    QuietOmerr() : was(::omerr().is_enabled()) { ::omerr().disable(); }
    ~QuietOmerr()
    {
        if (was)
            ::omerr().enable();
    }
    QuietOmerr(const QuietOmerr &) = delete;
    QuietOmerr &operator=(const QuietOmerr &) = delete;
};

// Builds m from in. tris_only: refuse faces of other orders (TriMesh::add_face would fan them
// into triangles). closed: refuse a boundary edge. *max_valence gets the largest vertex valence.
template <class Mesh>
int build(Mesh &m, const oracle_mesh *in, bool tris_only, bool closed, const char *what,
          size_t *max_valence, char *err, size_t cap)
{
    if (oracle__check_mesh(in, err, cap))
        return 1;
    size_t nv = static_cast<size_t>(in->nverts);
    std::vector<typename Mesh::VertexHandle> vh(nv);
    for (size_t i = 0; i < nv; ++i)
        vh[i] = m.add_vertex(typename Mesh::Point(in->pos[3 * i], in->pos[3 * i + 1],
                                                  in->pos[3 * i + 2]));
    std::vector<typename Mesh::VertexHandle> fv;
    QuietOmerr quiet;
    for (int f = 0; f < in->nfaces; ++f) {
        int b = in->start[f], e = in->start[f + 1];
        if (tris_only && e - b != 3)
            return oracle__say(err, cap, "%s takes triangles only: face %d has %d vertices", what, f,
                        e - b);
        fv.clear();
        for (int k = b; k < e; ++k)
            fv.push_back(vh[static_cast<size_t>(in->verts[k])]);
        if (!m.add_face(fv).is_valid()) {
            char list[96];
            int n = 0;
            list[0] = '\0';
            for (int k = b; k < e && n < static_cast<int>(sizeof list) - 16; ++k)
                n += std::snprintf(list + n, sizeof list - static_cast<size_t>(n), "%s%d",
                                   k > b ? " " : "", in->verts[k]);
            return oracle__say(err, cap,
                        "OpenMesh refused face %d (%s%s): complex edge or vertex (non-manifold "
                        "or inconsistently oriented)",
                        f, list, n >= static_cast<int>(sizeof list) - 16 ? " ..." : "");
        }
    }
    if (closed) {
        for (auto eh : m.edges())
            if (m.is_boundary(eh)) {
                auto h = m.halfedge_handle(eh, 0);
                return oracle__say(err, cap,
                            "%s takes closed meshes only: edge %d-%d is on a boundary", what,
                            m.from_vertex_handle(h).idx(), m.to_vertex_handle(h).idx());
            }
    }
    size_t mv = 0;
    for (auto v : m.vertices())
        mv = std::max(mv, static_cast<size_t>(m.valence(v)));
    *max_valence = mv;
    return 0;
}

// Copies the mesh (live elements only, renumbered in handle order) into out.
template <class Mesh>
int extract(const Mesh &m, oracle_mesh *out, char *err, size_t cap)
{
    std::vector<int> id(m.n_vertices(), -1);
    int nv = 0, nf = 0;
    long long ncorners = 0;
    for (auto v : m.vertices())
        id[static_cast<size_t>(v.idx())] = nv++;
    for (auto f : m.faces()) {
        ++nf;
        ncorners += static_cast<long long>(m.valence(f));
    }
    if (oracle__alloc_mesh(out, nv, nf, ncorners))
        return oracle__say(err, cap, "out of memory for %d vertices, %d faces", nv, nf);
    for (auto v : m.vertices()) {
        const typename Mesh::Point &p = m.point(v);
        size_t i = static_cast<size_t>(id[static_cast<size_t>(v.idx())]);
        out->pos[3 * i] = p[0];
        out->pos[3 * i + 1] = p[1];
        out->pos[3 * i + 2] = p[2];
    }
    int k = 0, f = 0;
    out->start[0] = 0;
    for (auto fh : m.faces()) {
        for (auto v : m.fv_range(fh))
            out->verts[k++] = id[static_cast<size_t>(v.idx())];
        out->start[++f] = k;
    }
    return 0;
}

// Sqrt3T and LoopT keep weights for valences below 50 only (by default); CatmullClarkT has
// none to size.
template <class S>
auto init_weights(S &s, size_t n) -> decltype(s.init_weights(n), void())
{
    s.init_weights(n);
}

template <class S>
void init_weights(S &, ...)
{
}

template <class Mesh, class Subdivider>
int run(const oracle_mesh *in, int levels, bool tris_only, bool closed, const char *what,
        oracle_mesh *out, oracle_times *t, char *err, size_t cap)
{
    if (levels < 0)
        return oracle__say(err, cap, "levels %d < 0", levels);
    Clock::time_point t0 = Clock::now();
    Mesh m;
    size_t max_valence = 0;
    if (build(m, in, tris_only, closed, what, &max_valence, err, cap))
        return 1;
    if (levels > 0) {
        Subdivider sub;
        // Weights for every valence of the mesh: refinement keeps the valence of old
        // vertices, and new ones have valence 6.
        init_weights(sub, std::max<size_t>(50, max_valence + 1));
        if (!sub.attach(m))
            return oracle__say(err, cap, "%s: attach failed", what);
        bool ok = sub(static_cast<size_t>(levels));
        sub.detach();
        if (!ok)
            return oracle__say(err, cap, "%s: subdivision failed", what);
    }
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (extract(m, out, err, cap))
        return 1;
    if (t) {
        t->refine_ms = ms;
        t->stencil_ms = 0.0;
        t->eval_ms = 0.0;
    }
    return 0;
}

using Sqrt3 = OpenMesh::Subdivider::Uniform::Sqrt3T<TriMesh, double>;
using Loop = OpenMesh::Subdivider::Uniform::LoopT<TriMesh, double>;
using CatmullClark = OpenMesh::Subdivider::Uniform::CatmullClarkT<PolyMesh, double>;

template <class F>
int guarded(oracle_mesh *out, char *err, size_t cap, F body)
{
    if (err && cap > 0)
        err[0] = '\0';
    if (!out)
        return oracle__say(err, cap, "out is NULL");
    *out = oracle_mesh{};
    int rc;
    try {
        rc = body();
    } catch (const std::bad_alloc &) {
        rc = oracle__say(err, cap, "OpenMesh: out of memory");
    } catch (const std::exception &e) {
        rc = oracle__say(err, cap, "OpenMesh threw: %s", e.what());
    } catch (...) {
        rc = oracle__say(err, cap, "OpenMesh threw an unknown exception");
    }
    if (rc)
        oracle_mesh_free(out);
    return rc;
}

} // namespace

extern "C" int oracle_om_sqrt3(const oracle_mesh *in, int levels, oracle_mesh *out,
                               oracle_times *t, char *err, size_t cap)
{
    return guarded(out, err, cap, [&] {
        // Boundaries allowed: Sqrt3T's own boundary rule (Kobbelt's), which is ours.
        return run<TriMesh, Sqrt3>(in, levels, true, false, "OpenMesh sqrt3", out, t, err, cap);
    });
}

extern "C" int oracle_om_refine(int scheme, const oracle_mesh *in, int levels, oracle_mesh *out,
                                oracle_times *t, char *err, size_t cap)
{
    return guarded(out, err, cap, [&] {
        if (scheme == 0)
            return run<TriMesh, Loop>(in, levels, true, false, "OpenMesh Loop", out, t, err,
                                      cap);
        if (scheme == 1)
            return run<PolyMesh, CatmullClark>(in, levels, false, false,
                                               "OpenMesh Catmull-Clark", out, t, err, cap);
        return oracle__say(err, cap, "unknown scheme %d (0 Loop, 1 Catmull-Clark)", scheme);
    });
}

extern "C" int oracle_om_laplace_smooth(const oracle_mesh *in, int iterations, oracle_mesh *out,
                                        char *err, size_t cap)
{
    return guarded(out, err, cap, [&] {
        if (iterations < 0)
            return oracle__say(err, cap, "iterations %d < 0", iterations);
        PolyMesh m;
        size_t max_valence = 0;
        if (build(m, in, false, false, "OpenMesh JacobiLaplaceSmoother", &max_valence, err, cap))
            return 1;
        {
            // Uniform weights (Tangential_and_Normal picks them), C0: per iteration every
            // vertex not on a boundary moves to p + 0.5 (mean of its neighbours - p), all from
            // the previous positions; no local error check (tolerance -1 by default).
            OpenMesh::Smoother::JacobiLaplaceSmootherT<PolyMesh> smoother(m);
            smoother.initialize(OpenMesh::Smoother::JacobiLaplaceSmootherT<PolyMesh>::Tangential_and_Normal,
                                OpenMesh::Smoother::JacobiLaplaceSmootherT<PolyMesh>::C0);
            smoother.smooth(static_cast<unsigned int>(iterations));
        }
        return extract(m, out, err, cap);
    });
}
