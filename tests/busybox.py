"""A tiny docker image made locally (there is no image registry here): a static busybox as the
only file, with the applets a test needs linked to it, imported with ``docker import``."""

import io
import tarfile

from system import need_docker, need_program


def busybox_image(repository: str, tag: str, applets: tuple[str, ...], files: dict[str, str] | None = None):
    """Import the image ``repository:tag`` (with ``files``: path in the image -> text, executable;
    None makes the path a link to ``usr/<path>``) and return the docker client. Skips the test
    (with what to install) without a running docker engine or a static busybox (:mod:`system`)."""
    client = need_docker()
    busybox = need_program("busybox", "apt-get install busybox-static")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        tar.add(busybox, arcname="bin/busybox")
        for name in applets:
            link = tarfile.TarInfo(f"bin/{name}")
            link.type, link.linkname = tarfile.SYMTYPE, "busybox"
            tar.addfile(link)
        for name, text in (files or {}).items():
            if text is None:                         # lib, lib64: links into /usr, as on the host
                link = tarfile.TarInfo(name)
                link.type, link.linkname = tarfile.SYMTYPE, f"usr/{name}"
                tar.addfile(link)
                continue
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o755
            tar.addfile(info, io.BytesIO(data))
    client.api.import_image_from_data(buf.getvalue(), repository=repository, tag=tag)
    return client


def python_image(repository: str, tag: str):
    """An image that runs this machine's Python and simleague (there is no image registry to pull a
    Python image from): busybox, ``/bin/simleague`` calling this interpreter, and the ``docker run``
    words that mount, read-only, what that needs from the host (``/usr``, the interpreter, the
    virtual environment, this checkout). Returns (client, "IMAGE:TAG", docker run words)."""
    import sys
    from pathlib import Path

    import simleague

    source = Path(simleague.__file__).resolve().parents[2]
    client = busybox_image(repository, tag, ("sh",), {
        "bin/simleague": f"#!/bin/sh\nexec {sys.executable} -m simleague \"$@\"\n",
        "tmp/.keep": "", "lib": None, "lib64": None})
    mounts = []
    for path in dict.fromkeys(["/usr", "/etc/ld.so.cache", sys.base_prefix, sys.prefix, str(source)]):
        mounts += ["-v", f"{path}:{path}:ro"]
    return client, f"{repository}:{tag}", mounts
