// tests/oracle/osd_shim.cpp: OpenSubdiv 3.5 uniform refinement behind the oracle's C API.
//
// Topology: Far::TopologyRefinerFactory<TopologyDescriptor>, with the creases, corners and holes
// of OpenSubdiv's regression-shape tags when given, then RefineUniform. Positions: a double
// stencil table for the last level only, applied on the CPU. OpenSubdiv reports topology errors
// through a global callback that prints by default; it is replaced by one that keeps the last
// message, so the shim prints nothing.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include <opensubdiv/far/error.h>
#include <opensubdiv/far/primvarRefiner.h>
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

// What the tags ask for, in the TopologyDescriptor's and Sdc::Options' terms.
struct Tags {
    std::vector<int> crease_pairs;     // 2 per crease edge
    std::vector<float> crease_weights; // 1 per crease edge
    std::vector<int> corners;
    std::vector<float> corner_weights;
    std::vector<int> holes;
};

// Parses OpenSubdiv's regression-shape tags (regression/common/shape_utils.h), one per line:
//   t NAME NINT/NFLOAT/NSTRING INT... FLOAT... STRING...
// and applies them to sdc / tags the way regression/common/far_utils.h and shape_utils.h do,
// but strictly: a malformed line, a wrong argument count, an index out of range or a tag not
// listed below is an error (err set, 1 returned) rather than a skipped line.
//   crease  2k ints (vertex pairs), 1 float (shared) or k floats (one per pair)
//   corner  k ints (vertices), 1 float (shared) or k floats
//   hole    k ints (faces), no floats
//   interpolateboundary  1 int: 0 VTX_BOUNDARY_NONE, 1 EDGE_AND_CORNER, 2 EDGE_ONLY
//   creasemethod         1 string: normal (CREASE_UNIFORM) or chaikin (CREASE_CHAIKIN)
//   smoothtriangles      1 string: catmark (TRI_SUB_CATMARK) or smooth (TRI_SUB_SMOOTH);
//                        Catmull-Clark only, as in shape_utils.h
//   facevaryinginterpolateboundary, facevaryingpropagatecorners: accepted and ignored (they
//                        only change face-varying data, never positions)
// Sharpness below 0 is taken as 0, as far_utils.h does. The hierarchical edits (vertexedit,
// edgeedit, faceedit) are refused: OpenSubdiv 3 has no hierarchical edits (its regression tools
// skip them with a warning), so no OpenSubdiv 3 result honours them.
int parse_tags(const char *text, int scheme, const oracle_mesh *in, Sdc::Options &sdc,
               Tags &tags, char *err, size_t cap)
{
    std::istringstream lines(text);
    std::string line;
    int lineno = 0;
    while (std::getline(lines, line)) {
        ++lineno;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        std::istringstream ls(line);
        std::string t, name, counts;
        if (!(ls >> t))
            continue; // blank line
        if (t != "t" || !(ls >> name))
            return oracle__say(err, cap, "tag line %d is not 't NAME ...': %.80s", lineno, line.c_str());
        int ni = -1, nf = -1, ns = -1;
        char tail = 0;
        if (!(ls >> counts) ||
            std::sscanf(counts.c_str(), "%d/%d/%d%c", &ni, &nf, &ns, &tail) != 3 || ni < 0 ||
            nf < 0 || ns < 0)
            return oracle__say(err, cap, "tag %s (line %d): bad argument counts '%s', want I/F/S",
                        name.c_str(), lineno, counts.c_str());
        std::vector<int> ints(static_cast<size_t>(ni));
        std::vector<float> floats(static_cast<size_t>(nf));
        std::vector<std::string> strings(static_cast<size_t>(ns));
        for (int &v : ints) {
            std::string tok;
            char *end = nullptr;
            long x = 0;
            if (ls >> tok)
                x = std::strtol(tok.c_str(), &end, 10);
            if (!end || *end || end == tok.c_str() || x < -2147483647L || x > 2147483647L)
                return oracle__say(err, cap, "tag %s (line %d): expected %d integers", name.c_str(),
                            lineno, ni);
            v = static_cast<int>(x);
        }
        for (float &v : floats) {
            std::string tok;
            char *end = nullptr;
            double x = 0;
            if (ls >> tok)
                x = std::strtod(tok.c_str(), &end);
            if (!end || *end || end == tok.c_str())
                return oracle__say(err, cap, "tag %s (line %d): expected %d floats", name.c_str(),
                            lineno, nf);
            v = static_cast<float>(x);
        }
        for (std::string &v : strings)
            if (!(ls >> v))
                return oracle__say(err, cap, "tag %s (line %d): expected %d strings", name.c_str(),
                            lineno, ns);
        std::string extra;
        if (ls >> extra)
            return oracle__say(err, cap, "tag %s (line %d): more arguments than %s", name.c_str(),
                        lineno, counts.c_str());

        if (name == "crease" || name == "corner") {
            bool crease = name == "crease";
            int per = crease ? 2 : 1, n = ni / per;
            if (ni == 0 || ni % per || ns != 0 || !(nf == 1 || nf == n))
                return oracle__say(err, cap,
                            "tag %s (line %d): want %s and 1 or one-per-%s floats, got %s",
                            name.c_str(), lineno, crease ? "vertex pairs" : "vertices",
                            crease ? "pair" : "vertex", counts.c_str());
            for (int v : ints)
                if (v < 0 || v >= in->nverts)
                    return oracle__say(err, cap, "tag %s (line %d): vertex %d out of range 0..%d",
                                name.c_str(), lineno, v, in->nverts - 1);
            for (int k = 0; k < n; ++k) {
                float w = std::max(0.0f, floats[static_cast<size_t>(nf == 1 ? 0 : k)]);
                if (crease) {
                    tags.crease_pairs.push_back(ints[static_cast<size_t>(2 * k)]);
                    tags.crease_pairs.push_back(ints[static_cast<size_t>(2 * k + 1)]);
                    tags.crease_weights.push_back(w);
                } else {
                    tags.corners.push_back(ints[static_cast<size_t>(k)]);
                    tags.corner_weights.push_back(w);
                }
            }
        } else if (name == "hole") {
            if (ni == 0 || nf != 0 || ns != 0)
                return oracle__say(err, cap, "tag hole (line %d): want face indices only, got %s",
                            lineno, counts.c_str());
            for (int f : ints) {
                if (f < 0 || f >= in->nfaces)
                    return oracle__say(err, cap, "tag hole (line %d): face %d out of range 0..%d",
                                lineno, f, in->nfaces - 1);
                tags.holes.push_back(f);
            }
        } else if (name == "interpolateboundary") {
            if (ni != 1 || nf != 0 || ns != 0 || ints[0] < 0 || ints[0] > 2)
                return oracle__say(err, cap,
                            "tag interpolateboundary (line %d): want one integer 0..2", lineno);
            static const Sdc::Options::VtxBoundaryInterpolation modes[3] = {
                Sdc::Options::VTX_BOUNDARY_NONE, Sdc::Options::VTX_BOUNDARY_EDGE_AND_CORNER,
                Sdc::Options::VTX_BOUNDARY_EDGE_ONLY};
            sdc.SetVtxBoundaryInterpolation(modes[ints[0]]);
        } else if (name == "creasemethod") {
            if (ni != 0 || nf != 0 || ns != 1 || (strings[0] != "normal" && strings[0] != "chaikin"))
                return oracle__say(err, cap,
                            "tag creasemethod (line %d): want one string, normal or chaikin",
                            lineno);
            sdc.SetCreasingMethod(strings[0] == "chaikin" ? Sdc::Options::CREASE_CHAIKIN
                                                          : Sdc::Options::CREASE_UNIFORM);
        } else if (name == "smoothtriangles") {
            if (ni != 0 || nf != 0 || ns != 1 || (strings[0] != "catmark" && strings[0] != "smooth"))
                return oracle__say(err, cap,
                            "tag smoothtriangles (line %d): want one string, catmark or smooth",
                            lineno);
            if (scheme != 1)
                return oracle__say(err, cap,
                            "tag smoothtriangles (line %d) applies to Catmull-Clark only",
                            lineno);
            sdc.SetTriangleSubdivision(strings[0] == "smooth" ? Sdc::Options::TRI_SUB_SMOOTH
                                                              : Sdc::Options::TRI_SUB_CATMARK);
        } else if (name == "facevaryinginterpolateboundary") {
            // Face-varying only: no effect on positions; the mode of the texture coordinates.
            if (ni != 1 || ints[0] < 0 || ints[0] > 5)
                return oracle__say(err, cap, "tag facevaryinginterpolateboundary (line %d): want "
                                   "one integer 0..5", lineno);
            static const Sdc::Options::FVarLinearInterpolation modes[6] = {
                Sdc::Options::FVAR_LINEAR_NONE, Sdc::Options::FVAR_LINEAR_CORNERS_ONLY,
                Sdc::Options::FVAR_LINEAR_CORNERS_PLUS1, Sdc::Options::FVAR_LINEAR_CORNERS_PLUS2,
                Sdc::Options::FVAR_LINEAR_BOUNDARIES, Sdc::Options::FVAR_LINEAR_ALL};
            sdc.SetFVarLinearInterpolation(modes[ints[0]]);
        } else if (name == "facevaryingpropagatecorners") {
            // Face-varying only (the corners-plus modes): accepted, ignored.
        } else {
            return oracle__say(err, cap, "unsupported tag %s", name.c_str());
        }
    }
    return 0;
}

// A face-varying channel (texture coordinates): values and one index per corner, in, and per
// corner of the output's faces, out.
struct FVarIO {
    int nvalues;
    const double *values; // 2 per value
    const int *index;     // per input corner
    double **out;         // 2 per output corner (malloc'ed)
};

int refine(int scheme, const oracle_mesh *in, const char *tag_text, int levels, oracle_mesh *out,
           oracle_times *t, double **normals, const FVarIO *fv, char *err, size_t cap)
{
    if (scheme < 0 || scheme > 2)
        return oracle__say(err, cap, "unknown scheme %d (0 Loop, 1 Catmull-Clark, 2 bilinear)",
                           scheme);
    if (levels < 0 || levels > 15)
        return oracle__say(err, cap, "levels %d out of OpenSubdiv's range 0..15", levels);
    if (oracle__check_faces(in, 1, err, cap))
        return 1;

    Sdc::Options sdc;
    sdc.SetVtxBoundaryInterpolation(Sdc::Options::VTX_BOUNDARY_EDGE_ONLY);
    sdc.SetFVarLinearInterpolation(Sdc::Options::FVAR_LINEAR_ALL);
    sdc.SetTriangleSubdivision(Sdc::Options::TRI_SUB_CATMARK);
    sdc.SetCreasingMethod(Sdc::Options::CREASE_UNIFORM);
    const Sdc::SchemeType type = scheme == 0   ? Sdc::SCHEME_LOOP
                                 : scheme == 1 ? Sdc::SCHEME_CATMARK
                                               : Sdc::SCHEME_BILINEAR;
    Tags tags;
    if (tag_text && parse_tags(tag_text, scheme, in, sdc, tags, err, cap))
        return 1;

    std::vector<int> counts(static_cast<size_t>(in->nfaces));
    for (int f = 0; f < in->nfaces; ++f)
        counts[static_cast<size_t>(f)] = in->start[f + 1] - in->start[f];
    Far::TopologyDescriptor desc;
    desc.numVertices = in->nverts;
    desc.numFaces = in->nfaces;
    desc.numVertsPerFace = counts.data();
    desc.vertIndicesPerFace = in->verts;
    desc.numCreases = static_cast<int>(tags.crease_weights.size());
    desc.creaseVertexIndexPairs = tags.crease_pairs.data();
    desc.creaseWeights = tags.crease_weights.data();
    desc.numCorners = static_cast<int>(tags.corner_weights.size());
    desc.cornerVertexIndices = tags.corners.data();
    desc.cornerWeights = tags.corner_weights.data();
    desc.numHoles = static_cast<int>(tags.holes.size());
    desc.holeIndices = tags.holes.data();
    Far::TopologyDescriptor::FVarChannel channel;
    if (fv) {
        channel.numValues = fv->nvalues;
        channel.valueIndices = fv->index;
        desc.numFVarChannels = 1;
        desc.fvarChannels = &channel;
    }

    osd_error.clear();
    osd_warning.clear();
    Far::SetErrorCallback(on_error);
    Far::SetWarningCallback(on_warning);

    Clock::time_point t0 = Clock::now();
    using Factory = Far::TopologyRefinerFactory<Far::TopologyDescriptor>;
    std::unique_ptr<Far::TopologyRefiner> refiner(
        Factory::Create(desc, Factory::Options(type, sdc)));
    if (!refiner)
        return oracle__say(err, cap, "OpenSubdiv's TopologyRefinerFactory refused the mesh: %s",
                    osd_error.empty() ? "(no message)" : osd_error.c_str());
    // The factory only warns (and drops the crease) when a crease names no edge; the regression
    // tools refuse the shape then, and so does the oracle.
    for (size_t k = 0; k < tags.crease_weights.size(); ++k) {
        int a = tags.crease_pairs[2 * k], b = tags.crease_pairs[2 * k + 1];
        if (refiner->GetLevel(0).FindEdge(a, b) < 0)
            return oracle__say(err, cap, "tag crease: vertices %d and %d share no edge", a, b);
    }
    if (levels > 0) {
        Far::TopologyRefiner::UniformOptions uopt(levels);
        uopt.fullTopologyInLastLevel = normals != nullptr; // the limit masks read it
        refiner->RefineUniform(uopt);
    }
    double refine_ms = ms_since(t0);
    if (!osd_error.empty())
        return oracle__say(err, cap, "OpenSubdiv reported an error: %s", osd_error.c_str());

    const Far::TopologyLevel &last = refiner->GetLevel(levels);
    int nv = last.GetNumVertices(), nf = last.GetNumFaces();

    // Positions of every vertex of the last level, in OpenSubdiv's order.
    std::vector<double> pos(3 * static_cast<size_t>(nv));
    double stencil_ms = 0.0, eval_ms = 0.0;
    if (levels == 0) {
        if (nv > 0)
            std::memcpy(pos.data(), in->pos, sizeof(double) * 3 * static_cast<size_t>(nv));
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
            return oracle__say(err, cap, "OpenSubdiv's stencil table has %d stencils, expected %d",
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
                pos[3 * i + static_cast<size_t>(c)] = dst[i].p[c];
    }

    // The limit (normals != NULL): Far::PrimvarRefiner::Limit of the last level's positions,
    // positions and the two tangents, the normal their normalised cross product.
    std::vector<double> nrm;
    if (normals) {
        if (levels == 0)
            return oracle__say(err, cap, "the limit needs at least one level");
        std::vector<Point3> lp(static_cast<size_t>(nv)), t1(lp.size()), t2(lp.size()), ls(lp.size());
        for (size_t i = 0; i < lp.size(); ++i)
            for (int c = 0; c < 3; ++c)
                lp[i].p[c] = pos[3 * i + static_cast<size_t>(c)];
        Point3 *lsp = ls.data(), *t1p = t1.data(), *t2p = t2.data();
        Far::PrimvarRefinerReal<double>(*refiner).Limit(lp.data(), lsp, t1p, t2p);
        nrm.resize(3 * lp.size());
        for (size_t i = 0; i < lp.size(); ++i) {
            const double *a = t1[i].p, *b = t2[i].p;
            double n[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
            double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            for (int c = 0; c < 3; ++c) {
                pos[3 * i + static_cast<size_t>(c)] = ls[i].p[c];
                nrm[3 * i + static_cast<size_t>(c)] = len > 0 ? n[c] / len : 0.0;
            }
        }
    }

    // Face-varying values level by level (Far::PrimvarRefiner::InterpolateFaceVarying).
    std::vector<Point3> fvals;
    if (fv) {
        fvals.resize(static_cast<size_t>(fv->nvalues));
        for (size_t i = 0; i < fvals.size(); ++i)
            fvals[i].p[0] = fv->values[2 * i], fvals[i].p[1] = fv->values[2 * i + 1], fvals[i].p[2] = 0.0;
        Far::PrimvarRefinerReal<double> pr(*refiner);
        for (int l = 1; l <= levels; ++l) {
            std::vector<Point3> next(static_cast<size_t>(refiner->GetLevel(l).GetNumFVarValues(0)));
            Point3 *dst = next.data();
            pr.InterpolateFaceVarying(l, fvals.data(), dst, 0);
            fvals.swap(next);
        }
    }

    // Holes: uniform refinement still refines a hole face; its children are tagged as holes
    // (TopologyLevel::IsFaceHole) and get stencils like any other. The output leaves the hole
    // faces out, as a viewer does, and with them the vertices that only hole faces use; a vertex
    // no face uses (an isolated vertex of the input, refined) stays. Without holes every vertex
    // and face is kept, in OpenSubdiv's order; with them the kept ones keep their relative order.
    bool holes = refiner->HasHoles();
    // use[v]: 0 no face, 1 only hole faces, 2 a kept face.
    std::vector<unsigned char> use(static_cast<size_t>(nv), 0);
    int kept_faces = 0;
    long long ncorners = 0;
    for (int f = 0; f < nf; ++f) {
        Far::ConstIndexArray fv = last.GetFaceVertices(f);
        bool hole = holes && last.IsFaceHole(f);
        for (int j = 0; j < fv.size(); ++j) {
            unsigned char &u = use[static_cast<size_t>(fv[j])];
            u = std::max(u, static_cast<unsigned char>(hole ? 1 : 2));
        }
        if (!hole) {
            ++kept_faces;
            ncorners += fv.size();
        }
    }
    std::vector<int> renumber(static_cast<size_t>(nv));
    int kept_verts = 0;
    for (int v = 0; v < nv; ++v)
        renumber[static_cast<size_t>(v)] = use[static_cast<size_t>(v)] == 1 ? -1 : kept_verts++;

    if (oracle__alloc_mesh(out, kept_verts, kept_faces, ncorners))
        return oracle__say(err, cap, "out of memory for %d vertices, %d faces", kept_verts, kept_faces);
    if (fv && !(*fv->out = static_cast<double *>(std::malloc(sizeof(double) * 2 * (ncorners ? ncorners : 1)))))
        return oracle__say(err, cap, "out of memory for %lld face-varying values", ncorners);
    out->start[0] = 0;
    for (int f = 0, g = 0, k = 0; f < nf; ++f) {
        if (holes && last.IsFaceHole(f))
            continue;
        Far::ConstIndexArray fverts = last.GetFaceVertices(f);
        Far::ConstIndexArray fvals_of = fv ? last.GetFaceFVarValues(f, 0) : fverts;
        for (int j = 0; j < fverts.size(); ++j) {
            if (fv)
                for (int c = 0; c < 2; ++c)
                    (*fv->out)[2 * static_cast<size_t>(k) + static_cast<size_t>(c)] =
                        fvals[static_cast<size_t>(fvals_of[j])].p[c];
            out->verts[k++] = renumber[static_cast<size_t>(fverts[j])];
        }
        out->start[++g] = k;
    }
    if (normals && !(*normals = static_cast<double *>(std::malloc(sizeof(double) * 3 * (kept_verts ? kept_verts : 1)))))
        return oracle__say(err, cap, "out of memory for %d normals", kept_verts);
    for (int v = 0; v < nv; ++v) {
        int r = renumber[static_cast<size_t>(v)];
        if (r >= 0)
            for (int c = 0; c < 3; ++c) {
                out->pos[3 * static_cast<size_t>(r) + static_cast<size_t>(c)] =
                    pos[3 * static_cast<size_t>(v) + static_cast<size_t>(c)];
                if (normals)
                    (*normals)[3 * static_cast<size_t>(r) + static_cast<size_t>(c)] =
                        nrm[3 * static_cast<size_t>(v) + static_cast<size_t>(c)];
            }
    }
    if (t) {
        t->refine_ms = refine_ms;
        t->stencil_ms = stencil_ms;
        t->eval_ms = eval_ms;
    }
    return 0;
}


// refine() behind the C boundary: arguments checked, exceptions turned into err, the outputs
// released on failure.
int refine_guarded(int scheme, const oracle_mesh *in, const char *tags, int levels,
                   oracle_mesh *out, oracle_times *t, double **normals, const FVarIO *fv,
                   char *err, size_t cap)
{
    if (err && cap > 0)
        err[0] = '\0';
    if (!out)
        return oracle__say(err, cap, "out is NULL");
    *out = oracle_mesh{};
    if (normals)
        *normals = nullptr;
    int rc;
    try {
        rc = refine(scheme, in, tags, levels, out, t, normals, fv, err, cap);
    } catch (const std::bad_alloc &) {
        rc = oracle__say(err, cap, "OpenSubdiv: out of memory");
    } catch (const std::exception &e) {
        rc = oracle__say(err, cap, "OpenSubdiv threw: %s", e.what());
    } catch (...) {
        rc = oracle__say(err, cap, "OpenSubdiv threw an unknown exception");
    }
    if (rc) {
        oracle_mesh_free(out);
        if (normals) {
            std::free(*normals);
            *normals = nullptr;
        }
        if (fv) {
            std::free(*fv->out);
            *fv->out = nullptr;
        }
    }
    return rc;
}

} // namespace

extern "C" int oracle_osd_refine_tagged(int scheme, const oracle_mesh *in, const char *tags,
                                        int levels, oracle_mesh *out, oracle_times *t, char *err,
                                        size_t cap)
{
    return refine_guarded(scheme, in, tags, levels, out, t, nullptr, nullptr, err, cap);
}

extern "C" int oracle_osd_refine(int scheme, const oracle_mesh *in, int levels, oracle_mesh *out,
                                 oracle_times *t, char *err, size_t cap)
{
    return oracle_osd_refine_tagged(scheme, in, nullptr, levels, out, t, err, cap);
}

extern "C" int oracle_osd_limit(int scheme, const oracle_mesh *in, const char *tags, int levels,
                                oracle_mesh *out, double **normals, char *err, size_t cap)
{
    if (!normals)
        return oracle__say(err, cap, "normals is NULL");
    return refine_guarded(scheme, in, tags, levels, out, nullptr, normals, nullptr, err, cap);
}

extern "C" int oracle_osd_refine_uv(int scheme, const oracle_mesh *in, const char *tags,
                                   int nvalues, const double *values, const int *index, int levels,
                                   oracle_mesh *out, double **uv, char *err, size_t cap)
{
    if (!uv)
        return oracle__say(err, cap, "uv is NULL");
    *uv = nullptr;
    FVarIO fv{nvalues, values, index, uv};
    return refine_guarded(scheme, in, tags, levels, out, nullptr, nullptr, &fv, err, cap);
}
