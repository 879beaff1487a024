// tests/oracle/osd_patch.cpp: OpenSubdiv 3.5's patch evaluation behind the oracle's C API
// (oracle.h, oracle_osd_patch_eval): the reference of the limit tables (mmx_limit_table_*).
//
// Topology: Far::TopologyRefinerFactory<TopologyDescriptor> with the creases, corners and
// boundary mode given as arrays (the caller parses the tags), RefineAdaptive to the isolation
// level, Far::PatchTableFactory with Gregory-basis end caps, infinitely sharp patches and smooth
// (not legacy sharp) corner patches; the refined and local points by Far::PrimvarRefiner and
// ComputeLocalPointValues; each point found with Far::PatchMap and evaluated with
// PatchTable::EvaluateBasis, all in double.
#include <chrono>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <opensubdiv/far/patchMap.h>
#include <opensubdiv/far/patchTable.h>
#include <opensubdiv/far/patchTableFactory.h>
#include <opensubdiv/far/primvarRefiner.h>
#include <opensubdiv/far/topologyDescriptor.h>
#include <opensubdiv/far/topologyRefiner.h>
#include <opensubdiv/far/topologyRefinerFactory.h>

#include "oracle_internal.h"

namespace {

namespace Far = OpenSubdiv::Far;
namespace Sdc = OpenSubdiv::Sdc;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

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

int eval(int scheme, const oracle_mesh *in, const oracle_sharp *sh, int isolation, int n,
         const int *ptex, const double *u, const double *v, double *P, double *du, double *dv,
         oracle_times *t, char *err, size_t cap)
{
    if (scheme != 0 && scheme != 1)
        return oracle__say(err, cap, "scheme %d: patches are Loop (0) or Catmull-Clark (1)", scheme);
    if (isolation < 1 || isolation > 10)
        return oracle__say(err, cap, "isolation %d out of OpenSubdiv's range 1..10", isolation);
    if (oracle__check_mesh(in, err, cap)) return 1;
    Sdc::Options sdc;
    sdc.SetVtxBoundaryInterpolation(!sh || sh->boundary == 2 ? Sdc::Options::VTX_BOUNDARY_EDGE_ONLY
                                    : sh->boundary == 1 ? Sdc::Options::VTX_BOUNDARY_EDGE_AND_CORNER
                                                        : Sdc::Options::VTX_BOUNDARY_NONE);
    sdc.SetFVarLinearInterpolation(Sdc::Options::FVAR_LINEAR_ALL);
    sdc.SetCreasingMethod(sh && sh->chaikin ? Sdc::Options::CREASE_CHAIKIN
                                            : Sdc::Options::CREASE_UNIFORM);
    std::vector<int> counts(static_cast<size_t>(in->nfaces));
    for (int f = 0; f < in->nfaces; ++f)
        counts[static_cast<size_t>(f)] = in->start[f + 1] - in->start[f];
    Far::TopologyDescriptor desc;
    desc.numVertices = in->nverts;
    desc.numFaces = in->nfaces;
    desc.numVertsPerFace = counts.data();
    desc.vertIndicesPerFace = in->verts;
    if (sh) {
        desc.numCreases = sh->ncreases;
        desc.creaseVertexIndexPairs = sh->crease_verts;
        desc.creaseWeights = sh->crease_sharpness;
        desc.numCorners = sh->ncorners;
        desc.cornerVertexIndices = sh->corner_verts;
        desc.cornerWeights = sh->corner_sharpness;
    }
    const Clock::time_point t0 = Clock::now();
    using Factory = Far::TopologyRefinerFactory<Far::TopologyDescriptor>;
    std::unique_ptr<Far::TopologyRefiner> refiner(Factory::Create(
        desc, Factory::Options(scheme == 0 ? Sdc::SCHEME_LOOP : Sdc::SCHEME_CATMARK, sdc)));
    if (!refiner) return oracle__say(err, cap, "OpenSubdiv's TopologyRefinerFactory refused the mesh");
    Far::PatchTableFactory::Options po(static_cast<unsigned>(isolation));
    po.SetEndCapType(Far::PatchTableFactory::Options::ENDCAP_GREGORY_BASIS);
    po.useInfSharpPatch = true;
    // A smooth corner (edge-only boundaries, one face) as the smooth surface OpenSubdiv's own
    // refinement gives, not the legacy sharp corner patch (its default).
    po.generateLegacySharpCornerPatches = false;
    refiner->RefineAdaptive(po.GetRefineAdaptiveOptions());
    std::unique_ptr<Far::PatchTable> table(Far::PatchTableFactory::Create(*refiner, po));
    if (!table) return oracle__say(err, cap, "OpenSubdiv's PatchTableFactory failed");
    const int nref = refiner->GetNumVerticesTotal(), nlocal = table->GetNumLocalPoints();
    std::vector<Point3> pts(static_cast<size_t>(nref + nlocal));
    for (int i = 0; i < in->nverts; ++i)
        for (int c = 0; c < 3; ++c) pts[static_cast<size_t>(i)].p[c] = in->pos[3 * i + c];
    Far::PrimvarRefiner primvar(*refiner);
    Point3 *src = pts.data();
    for (int level = 1; level <= refiner->GetMaxLevel(); ++level) {
        Point3 *dst = src + refiner->GetLevel(level - 1).GetNumVertices();
        primvar.Interpolate(level, src, dst);
        src = dst;
    }
    if (nlocal) table->ComputeLocalPointValues(pts.data(), pts.data() + nref);
    Far::PatchMap map(*table);
    if (t) t->refine_ms = ms_since(t0);
    const Clock::time_point t1 = Clock::now();
    for (int i = 0; i < n; ++i) {
        const Far::PatchTable::PatchHandle *h = map.FindPatch(ptex[i], u[i], v[i]);
        if (!h) return oracle__say(err, cap, "point %d: no patch at ptex face %d (%g, %g)", i, ptex[i], u[i], v[i]);
        double wP[20], wDu[20], wDv[20];
        table->EvaluateBasis(*h, u[i], v[i], wP, wDu, wDv);
        const Far::ConstIndexArray cvs = table->GetPatchVertices(*h);
        for (int c = 0; c < 3; ++c) {
            double a = 0.0, b = 0.0, d = 0.0;
            for (int k = 0; k < cvs.size(); ++k) {
                const double x = pts[static_cast<size_t>(cvs[k])].p[c];
                a += wP[k] * x, b += wDu[k] * x, d += wDv[k] * x;
            }
            P[3 * i + c] = a;
            if (du) du[3 * i + c] = b;
            if (dv) dv[3 * i + c] = d;
        }
    }
    if (t) t->eval_ms = ms_since(t1), t->stencil_ms = 0.0;
    return 0;
}

} // namespace

extern "C" int oracle_osd_patch_eval(int scheme, const oracle_mesh *in, const oracle_sharp *sharp,
                                     int isolation, int n, const int *ptex, const double *u,
                                     const double *v, double *P, double *du, double *dv,
                                     oracle_times *t, char *err, size_t cap)
{
    try {
        return eval(scheme, in, sharp, isolation, n, ptex, u, v, P, du, dv, t, err, cap);
    } catch (const std::exception &e) {
        return oracle__say(err, cap, "OpenSubdiv threw: %s", e.what());
    } catch (...) {
        return oracle__say(err, cap, "OpenSubdiv threw");
    }
}
