// CGAL's isotropic remeshing (Polygon Mesh Processing) on a mesh file, as the peer of
// mmx_remesh in bench/remesh_quality.py: the same target length, iterations and feature
// angle. Edges sharper than the feature angle (PMP::detect_sharp_edges) and the boundary are
// constrained: CGAL splits and collapses them along their polylines, never across, and keeps
// their corners. Prints one line of JSON: the sizes and the time of isotropic_remeshing alone
// (and of the feature detection), a monotonic clock, one thread.
//
//   cgal_remesh IN.obj OUT.obj L ITERATIONS FEATURE_DEGREES
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Polygon_mesh_processing/detect_features.h>
#include <CGAL/Polygon_mesh_processing/remesh.h>
#include <CGAL/Surface_mesh.h>
#include <CGAL/boost/graph/IO/polygon_mesh_io.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

typedef CGAL::Exact_predicates_inexact_constructions_kernel K;
typedef CGAL::Surface_mesh<K::Point_3> Mesh;
typedef boost::graph_traits<Mesh>::edge_descriptor edge_descriptor;
namespace PMP = CGAL::Polygon_mesh_processing;

int main(int argc, char **argv)
{
    if (argc != 6) {
        std::fprintf(stderr, "usage: cgal_remesh IN OUT L ITERATIONS FEATURE_DEGREES\n");
        return 2;
    }
    Mesh mesh;
    if (!CGAL::IO::read_polygon_mesh(argv[1], mesh) || !CGAL::is_triangle_mesh(mesh)) {
        std::fprintf(stderr, "cgal_remesh: %s: not a triangle mesh CGAL can read\n", argv[1]);
        return 1;
    }
    const double L = std::atof(argv[3]), angle = std::atof(argv[5]);
    const int iterations = std::atoi(argv[4]);
    const std::size_t v0 = num_vertices(mesh), f0 = num_faces(mesh);
    auto t0 = std::chrono::steady_clock::now();
    auto ecm = mesh.add_property_map<edge_descriptor, bool>("e:is_constrained", false).first;
    PMP::detect_sharp_edges(mesh, angle, ecm);
    for (edge_descriptor e : edges(mesh))
        if (is_border(e, mesh)) put(ecm, e, true);
    auto t1 = std::chrono::steady_clock::now();
    PMP::isotropic_remeshing(faces(mesh), L, mesh,
                             PMP::parameters::number_of_iterations(iterations)
                                 .edge_is_constrained_map(ecm)
                                 .protect_constraints(false)
                                 .relax_constraints(false));
    auto t2 = std::chrono::steady_clock::now();
    mesh.collect_garbage();
    if (!CGAL::IO::write_polygon_mesh(argv[2], mesh, CGAL::parameters::stream_precision(9))) {
        std::fprintf(stderr, "cgal_remesh: cannot write %s\n", argv[2]);
        return 1;
    }
    const double detect_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    const double remesh_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
    std::printf("{\"input\": {\"vertices\": %zu, \"faces\": %zu}, \"output\": {\"vertices\": %zu, "
                "\"faces\": %zu}, \"detect_ms\": %.3f, \"remesh_ms\": %.3f}\n",
                v0, f0, (std::size_t)num_vertices(mesh), (std::size_t)num_faces(mesh), detect_ms,
                remesh_ms);
    return 0;
}
