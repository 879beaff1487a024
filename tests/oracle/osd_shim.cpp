// tests/oracle/osd_shim.cpp: OpenSubdiv 3.5 uniform refinement behind the oracle's C API.
//
// Topology: Far::TopologyRefinerFactory<TopologyDescriptor> (no creases, corners or holes),
// then RefineUniform. Positions: a double stencil table for the last level only, applied on the
// CPU. OpenSubdiv reports topology errors through a global callback that prints by default; it
// is replaced by one that keeps the last message, so the shim prints nothing.
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <opensubdiv/far/error.h>
#include <opensubdiv/far/stencilTable.h>
#include <opensubdiv/far/stencilTableFactory.h>
#include <opensubdiv/far/topologyDescriptor.h>
#include <opensubdiv/far/topologyRefiner.h>
#include <opensubdiv/far/topologyRefinerFactory.h>
#include <opensubdiv/sdc/options.h>
#include <opensubdiv/sdc/types.h>

#include "oracle_internal.h"

namespace {

namespace Far = OpenSubdiv::Far;
namespace Sdc = OpenSubdiv::Sdc;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int fail(char *err, size_t cap, const char *fmt, ...)
{
    if (err && cap > 0) {
        va_list ap;
        va_start(ap, fmt);
        std::vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return 1;
}

// The last error and warning OpenSubdiv reported (its callbacks are global, so are these).
thread_local std::string osd_error;
thread_local std::string osd_warning;

void on_error(Far::ErrorType, const char *message)
{
    if (osd_error.empty())
        osd_error = message ? message : "(no message)";
}

void on_warning(const char *message)
{
    if (osd_warning.empty())
        osd_warning = message ? message : "(no message)";
}

// A position in double, in the form UpdateValues wants.
struct Point3 {
    double p[3];
    void Clear() { p[0] = p[1] = p[2] = 0.0; }
    void AddWithWeight(const Point3 &src, double w)
    {
        p[0] += w * src.p[0];
        p[1] += w * src.p[1];
        p[2] += w * src.p[2];
    }
};

int refine(int scheme, const oracle_mesh *in, int levels, oracle_mesh *out, oracle_times *t,
           char *err, size_t cap)
{
    if (scheme != 0 && scheme != 1)
        return fail(err, cap, "unknown scheme %d (0 Loop, 1 Catmull-Clark)", scheme);
    if (levels < 0 || levels > 15)
        return fail(err, cap, "levels %d out of OpenSubdiv's range 0..15", levels);
    if (oracle__check_mesh(in, err, cap))
        return 1;

    Sdc::Options sdc;
    sdc.SetVtxBoundaryInterpolation(Sdc::Options::VTX_BOUNDARY_EDGE_ONLY);
    sdc.SetFVarLinearInterpolation(Sdc::Options::FVAR_LINEAR_ALL);
    sdc.SetTriangleSubdivision(Sdc::Options::TRI_SUB_CATMARK);
    Sdc::SchemeType type = scheme == 0 ? Sdc::SCHEME_LOOP : Sdc::SCHEME_CATMARK;

    std::vector<int> counts(static_cast<size_t>(in->nfaces));
    for (int f = 0; f < in->nfaces; ++f)
        counts[static_cast<size_t>(f)] = in->start[f + 1] - in->start[f];
    Far::TopologyDescriptor desc;
    desc.numVertices = in->nverts;
    desc.numFaces = in->nfaces;
    desc.numVertsPerFace = counts.data();
    desc.vertIndicesPerFace = in->verts;

    osd_error.clear();
    osd_warning.clear();
    Far::SetErrorCallback(on_error);
    Far::SetWarningCallback(on_warning);

    Clock::time_point t0 = Clock::now();
    using Factory = Far::TopologyRefinerFactory<Far::TopologyDescriptor>;
    std::unique_ptr<Far::TopologyRefiner> refiner(
        Factory::Create(desc, Factory::Options(type, sdc)));
    if (!refiner)
        return fail(err, cap, "OpenSubdiv's TopologyRefinerFactory refused the mesh: %s",
                    osd_error.empty() ? "(no message)" : osd_error.c_str());
    if (levels > 0) {
        Far::TopologyRefiner::UniformOptions uopt(levels);
        uopt.fullTopologyInLastLevel = false;
        refiner->RefineUniform(uopt);
    }
    double refine_ms = ms_since(t0);
    if (!osd_error.empty())
        return fail(err, cap, "OpenSubdiv reported an error: %s", osd_error.c_str());

    const Far::TopologyLevel &last = refiner->GetLevel(levels);
    int nv = last.GetNumVertices(), nf = last.GetNumFaces();
    long long ncorners = 0;
    for (int f = 0; f < nf; ++f)
        ncorners += last.GetFaceVertices(f).size();
    if (oracle__alloc_mesh(out, nv, nf, ncorners))
        return fail(err, cap, "out of memory for %d vertices, %d faces", nv, nf);
    out->start[0] = 0;
    for (int f = 0, k = 0; f < nf; ++f) {
        Far::ConstIndexArray fv = last.GetFaceVertices(f);
        for (int j = 0; j < fv.size(); ++j)
            out->verts[k++] = fv[j];
        out->start[f + 1] = k;
    }

    double stencil_ms = 0.0, eval_ms = 0.0;
    if (levels == 0) {
        std::memcpy(out->pos, in->pos, sizeof(double) * 3 * static_cast<size_t>(nv));
    } else {
        Far::StencilTableFactoryReal<double>::Options sopt;
        sopt.generateIntermediateLevels = false;
        sopt.factorizeIntermediateLevels = true;
        sopt.generateOffsets = true;
        sopt.maxLevel = static_cast<unsigned>(levels);
        t0 = Clock::now();
        std::unique_ptr<const Far::StencilTableReal<double>> table(
            Far::StencilTableFactoryReal<double>::Create(*refiner, sopt));
        stencil_ms = ms_since(t0);
        if (!table || table->GetNumStencils() != nv) {
            int got = table ? table->GetNumStencils() : -1;
            oracle_mesh_free(out);
            return fail(err, cap, "OpenSubdiv's stencil table has %d stencils, expected %d",
                        got, nv);
        }
        std::vector<Point3> src(static_cast<size_t>(in->nverts)), dst(static_cast<size_t>(nv));
        for (size_t i = 0; i < src.size(); ++i)
            for (int c = 0; c < 3; ++c)
                src[i].p[c] = in->pos[3 * i + static_cast<size_t>(c)];
        t0 = Clock::now();
        table->UpdateValues(src.data(), dst.data());
        eval_ms = ms_since(t0);
        for (size_t i = 0; i < dst.size(); ++i)
            for (int c = 0; c < 3; ++c)
                out->pos[3 * i + static_cast<size_t>(c)] = dst[i].p[c];
    }
    if (t) {
        t->refine_ms = refine_ms;
        t->stencil_ms = stencil_ms;
        t->eval_ms = eval_ms;
    }
    return 0;
}

} // namespace

extern "C" int oracle_osd_refine(int scheme, const oracle_mesh *in, int levels, oracle_mesh *out,
                                 oracle_times *t, char *err, size_t cap)
{
    if (err && cap > 0)
        err[0] = '\0';
    if (!out)
        return fail(err, cap, "out is NULL");
    *out = oracle_mesh{};
    int rc;
    try {
        rc = refine(scheme, in, levels, out, t, err, cap);
    } catch (const std::bad_alloc &) {
        rc = fail(err, cap, "OpenSubdiv: out of memory");
    } catch (const std::exception &e) {
        rc = fail(err, cap, "OpenSubdiv threw: %s", e.what());
    } catch (...) {
        rc = fail(err, cap, "OpenSubdiv threw an unknown exception");
    }
    if (rc)
        oracle_mesh_free(out);
    return rc;
}
