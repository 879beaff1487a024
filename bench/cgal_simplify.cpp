// CGAL's Surface_mesh_simplification with the Garland-Heckbert policies (plane quadrics, the
// classic QEM: GarlandHeckbert_plane_policies, CGAL 5.5+) on a mesh file, as the peer of
// mmx_simplify in bench/simplify.c: down to a face count. Stops when the edges are at most
// 3/2 the target faces (a closed triangle mesh has E = 3F/2; nefertiti is closed). Prints one
// line of JSON: the sizes and the time of edge_collapse alone, a monotonic clock, one thread.
//
//   cgal_simplify IN.obj OUT.obj TARGET_FACES
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Surface_mesh.h>
#include <CGAL/Surface_mesh_simplification/edge_collapse.h>
#include <CGAL/Surface_mesh_simplification/Policies/Edge_collapse/GarlandHeckbert_policies.h>
#include <CGAL/boost/graph/IO/polygon_mesh_io.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

typedef CGAL::Exact_predicates_inexact_constructions_kernel K;
typedef CGAL::Surface_mesh<K::Point_3> Mesh;
namespace SMS = CGAL::Surface_mesh_simplification;

// Stops once the live edges number at most `edges` (the profile's counts are edges).
struct Edges_at_most {
    std::size_t edges;
    template <typename FT, typename Profile>
    bool operator()(const FT &, const Profile &, std::size_t, std::size_t current) const
    {
        return current <= edges;
    }
};

int main(int argc, char **argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: cgal_simplify IN OUT TARGET_FACES\n");
        return 2;
    }
    Mesh mesh;
    if (!CGAL::IO::read_polygon_mesh(argv[1], mesh) || !CGAL::is_triangle_mesh(mesh)) {
        std::fprintf(stderr, "cgal_simplify: %s: not a triangle mesh CGAL can read\n", argv[1]);
        return 1;
    }
    const long target = std::atol(argv[3]);
    const std::size_t v0 = num_vertices(mesh), f0 = num_faces(mesh);
    auto t0 = std::chrono::steady_clock::now();
    SMS::GarlandHeckbert_plane_policies<Mesh, K> gh(mesh);
    Edges_at_most stop{(std::size_t)(3 * target / 2)};
    SMS::edge_collapse(mesh, stop,
                       CGAL::parameters::get_cost(gh.get_cost()).get_placement(gh.get_placement()));
    auto t1 = std::chrono::steady_clock::now();
    mesh.collect_garbage();
    if (!CGAL::IO::write_polygon_mesh(argv[2], mesh, CGAL::parameters::stream_precision(9))) {
        std::fprintf(stderr, "cgal_simplify: cannot write %s\n", argv[2]);
        return 1;
    }
    const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    std::printf("{\"input\": {\"vertices\": %zu, \"faces\": %zu}, \"output\": {\"vertices\": %zu, "
                "\"faces\": %zu}, \"simplify_ms\": %.3f}\n",
                v0, f0, (std::size_t)num_vertices(mesh), (std::size_t)num_faces(mesh), ms);
    return 0;
}
