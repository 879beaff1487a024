#!/usr/bin/env python3
"""Writes the STL samples of the reader tests and of the fuzz target's seeds: the tetrahedron of
the PLY samples as ascii STL (tetra_ascii.stl, mixed-case keywords, CRLF line ends, two
solids) and as binary STL (tetra_binary.stl, whose 80-byte header begins with "solid" as some
exporters write, so only its size tells it binary), and the STL files of bad/. Written for
meshmatrix (issue 26); run it from this folder to regenerate the committed bytes."""
import struct

VERTS = [(0.0, 0.0, 0.0), (1.5, 0.0, 0.0), (0.0, 1.25, 0.0), (0.0, 0.0, 0.75)]
FACES = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]


def facet_text(f, kw=str.lower):
    lines = [kw("facet normal") + " 0 0 0", "  " + kw("outer loop")]
    lines += ["    %s %r %r %r" % ((kw("vertex"),) + VERTS[v]) for v in f]
    lines += ["  " + kw("endloop"), kw("endfacet")]
    return lines


def ascii_stl():
    lines = ["solid tetra"]
    for f in FACES[:2]:
        lines += facet_text(f)
    lines += ["endsolid tetra", "SOLID second"]
    for f in FACES[2:]:
        lines += facet_text(f, str.upper)
    lines += ["ENDSOLID second"]
    return ("\r\n".join(lines) + "\r\n").encode()


def binary_stl(faces, verts=VERTS, count=None, header=b"solid but binary: sized 84 + 50 n"):
    out = bytearray(header.ljust(80, b"\0"))
    out += struct.pack("<I", len(faces) if count is None else count)
    for f in faces:
        out += struct.pack("<3f", 0.0, 0.0, 0.0)
        for v in f:
            out += struct.pack("<3f", *verts[v])
        out += struct.pack("<H", 0)
    return bytes(out)


def write(name, data):
    with open(name, "wb") as fp:
        fp.write(data)


write("tetra_ascii.stl", ascii_stl())
write("tetra_binary.stl", binary_stl(FACES))
# bad/: one malformation each
write("bad/stl_truncated.stl", binary_stl(FACES, header=b"binary tetrahedron")[:84 + 50 * 2 + 20])
write("bad/stl_count_lies.stl", binary_stl(FACES[:1], count=4000000000, header=b"binary"))
write("bad/stl_binary_inf.stl", binary_stl(FACES, verts=VERTS[:3] + [(0.0, float("inf"), 0.0)],
                                           header=b"binary"))
write("bad/stl_no_endsolid.stl", b"solid cut\n" + ("\n".join(facet_text(FACES[0])) + "\n").encode())
write("bad/stl_two_vertices.stl", b"solid two\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n"
      b"vertex 1 0 0\nendloop\nendfacet\nendsolid two\n")
write("bad/stl_nan.stl", b"solid nan\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n"
      b"vertex 1 nan 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid nan\n")
write("bad/stl_garbage.stl", b"solid g\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n"
      b"vertex 1 x 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid g\n")
write("bad/stl_short.stl", b"tiny\n")
