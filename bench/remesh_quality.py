"""Remeshing quality against peers: mmx remesh, CGAL's isotropic_remeshing (bench/cgal_remesh,
built where CGAL is found) and MeshLab's isotropic explicit remeshing (pymeshlab, when a python
with it is given) on the same input, target length (the input's mean edge length unless given),
3 iterations and a 60 degree feature angle. For each result: edge length mean and relative
standard deviation, the share of edges in [4/5 L, 4/3 L], the smallest angle (and the 1st
percentile of the triangles' smallest angles), the share of interior vertices of valence 6, and
the Hausdorff distance to the input both ways (max and mean, in percent of the input's bounding
box diagonal; points: the vertices, edge midpoints and face centroids of one mesh, distances to
the other's triangles by libigl). Writes bench/results/remesh.md.

    python3 bench/remesh_quality.py BUILD_DIR [--meshlab-python PY] [--fixed-too] [--angles] MESH...
(--fixed-too: a second mmx row with --fixed-features, every feature vertex kept in place;
--angles: a second table, the smallest angles at and away from the features)
(needs numpy and igl: the oracle venv, /root/.cache/meshmatrix/oracle-venv/bin/python3)
"""
import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile

import igl
import numpy as np


def read_obj(path):
    V, F = [], []
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            if t[0] == 'v':
                V.append([float(x) for x in t[1:4]])
            elif t[0] == 'f':
                idx = [int(x.split('/')[0]) for x in t[1:]]
                idx = [i - 1 if i > 0 else len(V) + i for i in idx]
                for k in range(1, len(idx) - 1):
                    F.append([idx[0], idx[k], idx[k + 1]])
    V, F = np.array(V, dtype=np.float64), np.array(F, dtype=np.int64)
    used = np.unique(F)  # drop isolated vertices
    remap = -np.ones(len(V), dtype=np.int64)
    remap[used] = np.arange(len(used))
    return V[used], remap[F]


def edges(F):
    E = np.sort(np.concatenate([F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]]), axis=1)
    E, count = np.unique(E, axis=0, return_counts=True)
    return E, count


def feature_faces(V, F, feature_angle):
    """Per face: True when a corner is a feature vertex of (V, F), an end of a boundary edge or of
    an interior edge whose faces' normals differ by more than feature_angle degrees (the rule
    mmx remesh and CGAL's detect_sharp_edges apply to the input)."""
    N = np.cross(V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]])
    N /= np.maximum(np.linalg.norm(N, axis=1), 1e-300)[:, None]
    he = np.sort(np.concatenate([F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]]), axis=1)
    face = np.tile(np.arange(len(F)), 3)
    _, inv, count = np.unique(he, axis=0, return_inverse=True, return_counts=True)
    inv = inv.ravel()
    order = np.argsort(inv, kind='stable')
    first = np.searchsorted(inv[order], np.arange(len(count)))
    sharp = count != 2
    two = np.where(count == 2)[0]
    f0, f1 = face[order[first[two]]], face[order[first[two] + 1]]
    sharp[two] = np.sum(N[f0] * N[f1], axis=1) < np.cos(np.radians(feature_angle))
    fv = np.zeros(len(V), dtype=bool)
    fv[he[sharp[inv]].ravel()] = True
    return fv[F].any(axis=1)


def stats(V, F, L, V0, F0, feature_angle=60.0):
    E, count = edges(F)
    ln = np.linalg.norm(V[E[:, 0]] - V[E[:, 1]], axis=1)
    # angles
    a = np.linalg.norm(V[F[:, 1]] - V[F[:, 2]], axis=1)
    b = np.linalg.norm(V[F[:, 2]] - V[F[:, 0]], axis=1)
    c = np.linalg.norm(V[F[:, 0]] - V[F[:, 1]], axis=1)

    def ang(x, y, z):
        return np.degrees(np.arccos(np.clip((y * y + z * z - x * x) / (2 * y * z), -1, 1)))
    mins = np.minimum(np.minimum(ang(a, b, c), ang(b, c, a)), ang(c, a, b))
    at_feature = feature_faces(V, F, feature_angle)
    p1 = np.percentile(mins, 1)
    # valence of interior vertices
    bverts = np.unique(E[count == 1])
    val = np.bincount(E.ravel(), minlength=len(V))
    interior = np.ones(len(V), dtype=bool)
    interior[bverts] = False
    share6 = float(np.mean(val[interior] == 6)) if interior.any() else float('nan')
    # Hausdorff both ways, sampled at vertices, edge midpoints and centroids
    def samples(V, F):
        Ee, _ = edges(F)
        return np.concatenate([V, 0.5 * (V[Ee[:, 0]] + V[Ee[:, 1]]), V[F].mean(axis=1)])
    diag = np.linalg.norm(V0.max(axis=0) - V0.min(axis=0))
    d_out_in = np.sqrt(igl.point_mesh_squared_distance(samples(V, F), V0, F0)[0])
    d_in_out = np.sqrt(igl.point_mesh_squared_distance(samples(V0, F0), V, F)[0])
    return {
        'vertices': len(V), 'faces': len(F),
        'mean': float(ln.mean()), 'rel_std': float(ln.std() / ln.mean()),
        'in_band': float(np.mean((ln >= 0.8 * L) & (ln <= 4.0 / 3.0 * L))),
        'min_angle': float(mins.min()), 'p1_angle': float(p1),
        'p1_feature': float(np.percentile(mins[at_feature], 1)) if at_feature.any() else float('nan'),
        'p1_rest': float(np.percentile(mins[~at_feature], 1)) if (~at_feature).any() else float('nan'),
        'worst_at_feature': float(np.mean(at_feature[mins <= p1])),
        'under': [int(np.sum(mins < t)) for t in (20, 25, 30, 33)],
        'valence6': share6,
        'h_out_in_max': 100 * float(d_out_in.max()) / diag, 'h_out_in_mean': 100 * float(d_out_in.mean()) / diag,
        'h_in_out_max': 100 * float(d_in_out.max()) / diag, 'h_in_out_mean': 100 * float(d_in_out.mean()) / diag,
    }


def run_timed(cmd):
    """subprocess.run, and the CPU seconds (user + system) the child used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build')
    ap.add_argument('meshes', nargs='+')
    ap.add_argument('--meshlab-python', default=None)
    ap.add_argument('--iterations', type=int, default=3)
    ap.add_argument('--feature-angle', type=float, default=60.0)
    ap.add_argument('--fixed-too', action='store_true')
    ap.add_argument('--angles', action='store_true',
                    help='a second table: the 1%% angle at and away from the features, and the triangles under 20-33 degrees')
    ap.add_argument('--out', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), 'results', 'remesh.md'))
    args = ap.parse_args()
    mmx = os.path.join(args.build, 'tools', 'mmx')
    cgal = os.path.join(args.build, 'bench', 'cgal_remesh')
    here = os.path.dirname(os.path.abspath(__file__))
    tmp = tempfile.mkdtemp(prefix='remesh_quality_')
    rows = []
    for path in args.meshes:
        name = os.path.splitext(os.path.basename(path))[0]
        V0, F0 = read_obj(path)
        E0, _ = edges(F0)
        L = float(np.linalg.norm(V0[E0[:, 0]] - V0[E0[:, 1]], axis=1).mean())
        peers = []
        variants = [('meshmatrix (mmx remesh)', [])]
        if args.fixed_too:
            variants.append(('meshmatrix --fixed-features', ['--fixed-features']))
        for k, (label, extra) in enumerate(variants):
            out = os.path.join(tmp, '%s_mmx%d.obj' % (name, k))
            r, cpu = run_timed([mmx, '--json', 'remesh', '--length', repr(L), '--iterations', str(args.iterations),
                                '--feature-angle', str(args.feature_angle)] + extra + [path, out])
            if r.returncode:
                print('mmx failed on', path, r.stderr, file=sys.stderr)
            else:
                peers.append((label, out, json.loads(r.stdout)['remesh_ms'], cpu))
        if os.path.exists(cgal):
            out = os.path.join(tmp, name + '_cgal.obj')
            r, cpu = run_timed([cgal, path, out, repr(L), str(args.iterations), str(args.feature_angle)])
            if r.returncode:
                print('cgal failed on', path, r.stderr, file=sys.stderr)
            else:
                peers.append(('CGAL isotropic_remeshing', out, json.loads(r.stdout)['remesh_ms'], cpu))
        if args.meshlab_python:
            out = os.path.join(tmp, name + '_meshlab.obj')
            r, cpu = run_timed([args.meshlab_python, os.path.join(here, 'meshlab_remesh.py'), path, out, repr(L),
                                str(args.iterations), str(args.feature_angle)])
            if r.returncode:
                print('meshlab failed on', path, r.stderr, file=sys.stderr)
            else:
                peers.append(('MeshLab isotropic explicit', out, json.loads(r.stdout.strip().splitlines()[-1])['remesh_ms'], cpu))
        rows.append((name, len(V0), len(F0), L, stats(V0, F0, L, V0, F0, args.feature_angle), [(p, ms, cpu, stats(*read_obj(o), L, V0, F0, args.feature_angle)) for p, o, ms, cpu in peers]))
        print('done', name, file=sys.stderr)
    cpu = platform.processor() or platform.machine()
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    cpu = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    # Notes written by hand under a line starting with "Notes" survive a rerun.
    notes = ''
    if os.path.exists(args.out):
        with open(args.out) as f:
            old = f.read()
        at = old.find('\nNotes')
        notes = old[at:] if at >= 0 else ''
    with open(args.out, 'w') as f:
        f.write('# Isotropic remeshing against CGAL and MeshLab\n\n')
        f.write('Made by `bench/remesh_quality.py` on %s: %s, %d cores (shared with other jobs), host backend, '
                'one thread each. Target length L = the input\'s mean edge length, %d iterations, feature angle %g '
                'degrees, boundary kept. "call ms": wall time of the remeshing call alone (mmx: `mmx_remesh` including '
                'its set-up and BVH; CGAL: `isotropic_remeshing` after `detect_sharp_edges`; MeshLab: the filter call), '
                'one run; the machine is shared, so wall times vary with the other jobs. "CPU s": user + system time '
                'of the whole process (reading, writing; for MeshLab also starting Python and pymeshlab), steadier. '
                'Hausdorff: in %% of the input\'s bounding-box diagonal, sampled at vertices, edge midpoints and face '
                'centroids (libigl point-to-triangle distances); "out->in" is from the result to the input. Angles in '
                'degrees: the smallest over all triangles, and the 1st percentile of the per-triangle smallest angle. '
                'Valence 6: share of interior vertices.\n\n'
                % (datetime.date.today().isoformat(), cpu, os.cpu_count(), args.iterations, args.feature_angle))
        f.write('| mesh | method | V | F | call ms | CPU s | edge mean / L | rel. std | in [4/5 L, 4/3 L] | min angle | 1% angle '
                '| valence 6 | H out->in max / mean | H in->out max / mean |\n')
        f.write('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n')
        for name, nv, nf, L, s0, peers in rows:
            def line(label, ms, cpu, s):
                f.write('| %s | %s | %d | %d | %s | %s | %.3f | %.3f | %.1f%% | %.2f | %.1f | %.1f%% | %.3f / %.4f | %.3f / %.4f |\n' % (
                    name, label, s['vertices'], s['faces'], '%.0f' % ms if ms is not None else '-',
                    '%.2f' % cpu if cpu is not None else '-', s['mean'] / L,
                    s['rel_std'], 100 * s['in_band'], s['min_angle'], s['p1_angle'], 100 * s['valence6'],
                    s['h_out_in_max'], s['h_out_in_mean'], s['h_in_out_max'], s['h_in_out_mean']))
            line('input (L = %.4g)' % L, None, None, s0)
            for p, ms, cpu, s in peers:
                line(p, ms, cpu, s)
        if args.angles:
            f.write('\nSmallest angles at the features: "feature" are the triangles with a corner on a feature of the '
                    'result (an end of a boundary edge or of an edge whose faces\' normals differ by more than %g '
                    'degrees), "rest" the others; "worst 1%% at features": the share of the triangles at or under the '
                    '1%% angle that are feature triangles; "under t": the number of triangles whose smallest angle is '
                    'under t degrees (the 1st percentile also depends on the triangle count F).\n\n' % args.feature_angle)
            f.write('| mesh | method | F | 1% angle | 1% angle feature / rest | worst 1% at features '
                    '| under 20 / 25 / 30 / 33 |\n|---|---|---|---|---|---|---|\n')
            for name, nv, nf, L, s0, peers in rows:
                for p, ms, cpu, s in [('input', None, None, s0)] + peers:
                    f.write('| %s | %s | %d | %.1f | %.1f / %.1f | %.0f%% | %s |\n' % (
                        name, p, s['faces'], s['p1_angle'], s['p1_feature'], s['p1_rest'],
                        100 * s['worst_at_feature'], ' / '.join(str(k) for k in s['under'])))
        f.write(notes)
    print('wrote', args.out, file=sys.stderr)


if __name__ == '__main__':
    main()
