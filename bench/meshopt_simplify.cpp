// meshoptimizer's simplify (meshopt_simplify, its C API) on a triangle OBJ, as the peer of
// mmx_simplify in bench/simplify.c (--meshopt): down to a face count, border locked and the
// error bound open (1.0 relative, as bench/simplify_peers.py runs its Python wrapper). Prints
// one line of JSON: the sizes and the time of meshopt_simplify alone (a monotonic clock, one
// thread), and writes the result's used vertices and faces as OBJ.
//
//   meshopt_simplify IN.obj OUT.obj TARGET_FACES
//
// Not built by meson: meshoptimizer is not a dependency of the project. Build it against
// meshoptimizer's sources (its PyPI sdist carries them in src/), statically for the GPU machine:
//   g++ -O3 -DNDEBUG -static -I MO/src bench/meshopt_simplify.cpp MO/src/*.cpp -o meshopt_simplify
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "meshoptimizer.h"

// The v and f lines of an OBJ (a face's first three corners, vertex numbers only; negative
// numbers count from the end); 0 on a line it cannot read.
static int read_obj(const char *path, std::vector<float> &pos, std::vector<unsigned> &idx)
{
    FILE *f = std::fopen(path, "r");
    if (!f) return 0;
    char line[4096];
    int ok = 1;
    while (ok && std::fgets(line, sizeof line, f)) {
        if (line[0] == 'v' && line[1] == ' ') {
            float x, y, z;
            ok = std::sscanf(line + 2, "%f %f %f", &x, &y, &z) == 3;
            pos.push_back(x), pos.push_back(y), pos.push_back(z);
        } else if (line[0] == 'f' && line[1] == ' ') {
            char *p = line + 2;
            long v[3];
            for (int k = 0; ok && k < 3; k++) {
                char *end;
                v[k] = std::strtol(p, &end, 10);
                ok = end != p;
                p = end;
                while (*p && *p != ' ' && *p != '\t') p++; // past /vt/vn
            }
            const long n = (long)pos.size() / 3;
            for (int k = 0; ok && k < 3; k++) {
                const long i = v[k] < 0 ? n + v[k] : v[k] - 1;
                ok = i >= 0 && i < n;
                idx.push_back((unsigned)i);
            }
        }
    }
    std::fclose(f);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: meshopt_simplify IN.obj OUT.obj TARGET_FACES\n");
        return 2;
    }
    std::vector<float> pos;
    std::vector<unsigned> idx;
    if (!read_obj(argv[1], pos, idx)) {
        std::fprintf(stderr, "meshopt_simplify: cannot read %s\n", argv[1]);
        return 1;
    }
    const size_t target = (size_t)std::atol(argv[3]);
    std::vector<unsigned> out(idx.size());
    float err = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const size_t n = meshopt_simplify(out.data(), idx.data(), idx.size(), pos.data(), pos.size() / 3,
                                      3 * sizeof(float), 3 * target, 1.0f,
                                      meshopt_SimplifyLockBorder, &err);
    const auto t1 = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    // The used vertices, renumbered in the order of their first corner.
    std::vector<long> id(pos.size() / 3, -1);
    std::vector<unsigned> used;
    long nv = 0;
    for (size_t i = 0; i < n; i++)
        if (id[out[i]] < 0) id[out[i]] = nv++, used.push_back(out[i]);
    FILE *f = std::fopen(argv[2], "w");
    if (!f) {
        std::fprintf(stderr, "meshopt_simplify: cannot write %s\n", argv[2]);
        return 1;
    }
    for (const unsigned v : used)
        std::fprintf(f, "v %.9g %.9g %.9g\n", pos[3 * (size_t)v], pos[3 * (size_t)v + 1],
                     pos[3 * (size_t)v + 2]);
    for (size_t i = 0; i < n; i += 3)
        std::fprintf(f, "f %ld %ld %ld\n", id[out[i]] + 1, id[out[i + 1]] + 1, id[out[i + 2]] + 1);
    std::fclose(f);
    std::printf("{\"faces_in\": %zu, \"faces_out\": %zu, \"verts_out\": %ld, \"error\": %g, "
                "\"simplify_ms\": %.3f}\n", idx.size() / 3, n / 3, nv, err, ms);
    return 0;
}
