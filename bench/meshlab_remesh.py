"""MeshLab's isotropic explicit remeshing (pymeshlab) on a mesh file, as a peer of mmx_remesh
for bench/remesh_quality.py: the same target length (absolute), iterations and feature angle.
Prints one line of JSON with the time of the filter alone.

    python3 meshlab_remesh.py IN OUT L ITERATIONS FEATURE_DEGREES
"""
import json
import sys
import time

import pymeshlab

src, dst, length, iters, angle = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
ms = pymeshlab.MeshSet()
ms.load_new_mesh(src)
t0 = time.perf_counter()
ms.meshing_isotropic_explicit_remeshing(iterations=iters, targetlen=pymeshlab.PureValue(length),
                                        featuredeg=angle)
t1 = time.perf_counter()
ms.save_current_mesh(dst, save_vertex_normal=False, save_vertex_color=False)
m = ms.current_mesh()
print(json.dumps({"output": {"vertices": m.vertex_number(), "faces": m.face_number()},
                  "remesh_ms": (t1 - t0) * 1e3}))
