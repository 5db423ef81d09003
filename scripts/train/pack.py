"""Carry training data to a GPU machine that has PyTorch but no Node, and its weights back, in few small files.

  python3 scripts/train/pack.py data DATA_DIR FILE.xz         token ids as u16, mask as bits, xz (about a tenth)
  python3 scripts/train/pack.py undata FILE.xz DATA_DIR       back to the files train.py reads
  python3 scripts/train/pack.py weights WEIGHTS_DIR PREFIX    an export() folder as f16, xz, in parts of < 15 MiB
  python3 scripts/train/pack.py unweights PREFIX WEIGHTS_DIR  back to f32 files and the manifest

f16 keeps 11 bits of mantissa: the weights of these small models round-trip within 5e-4 relative, below what the GGUF
would hold if exported as f16 anyway.
"""

import glob
import io
import json
import lzma
import os
import sys

import numpy as np

# Under the 16 MiB a file that one GPU machine hands back may have; the environment can make it smaller (tests).
PART = int(os.environ.get("TOOLBRIDGE_PACK_PART", 15 << 20))


def pack_data(data_dir, out):
    ids = np.fromfile(os.path.join(data_dir, "train.ids.i32"), dtype="<i4")
    if ids.max() >= 1 << 16 or ids.min() < 0:
        raise SystemExit("token ids do not fit in 16 bits")
    mask = np.fromfile(os.path.join(data_dir, "train.mask.u8"), dtype=np.uint8)
    offsets = np.fromfile(os.path.join(data_dir, "train.offsets.i32"), dtype="<i4")
    buf = io.BytesIO()
    np.savez(buf, ids=ids.astype("<u2"), mask=np.packbits(mask), n=np.array([len(mask)]), offsets=offsets,
             vocab=np.frombuffer(open(os.path.join(data_dir, "vocab-size.json"), "rb").read(), dtype=np.uint8))
    with open(out, "wb") as f:
        f.write(lzma.compress(buf.getvalue(), preset=6))


def unpack_data(src, data_dir):
    z = np.load(io.BytesIO(lzma.decompress(open(src, "rb").read())))
    os.makedirs(data_dir, exist_ok=True)
    z["ids"].astype("<i4").tofile(os.path.join(data_dir, "train.ids.i32"))
    np.unpackbits(z["mask"])[: int(z["n"][0])].astype(np.uint8).tofile(os.path.join(data_dir, "train.mask.u8"))
    z["offsets"].astype("<i4").tofile(os.path.join(data_dir, "train.offsets.i32"))
    open(os.path.join(data_dir, "vocab-size.json"), "wb").write(z["vocab"].tobytes())


def pack_weights(weights_dir, prefix):
    manifest = json.load(open(os.path.join(weights_dir, "manifest.json")))
    arrays = {name: np.fromfile(os.path.join(weights_dir, name + ".f32"), dtype="<f4").astype("<f2")
              for name in manifest["tensors"]}
    buf = io.BytesIO()
    np.savez(buf, manifest=np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8), **arrays)
    data = lzma.compress(buf.getvalue(), preset=1)
    for i in range(0, len(data), PART):
        with open(f"{prefix}.part{i // PART}", "wb") as f:
            f.write(data[i:i + PART])


def unpack_weights(prefix, weights_dir):
    parts = sorted(glob.glob(glob.escape(prefix) + ".part*"), key=lambda p: int(p.rsplit("part", 1)[1]))
    z = np.load(io.BytesIO(lzma.decompress(b"".join(open(p, "rb").read() for p in parts))))
    manifest = json.loads(z["manifest"].tobytes())
    os.makedirs(weights_dir, exist_ok=True)
    for name in manifest["tensors"]:
        z[name].astype("<f4").tofile(os.path.join(weights_dir, name + ".f32"))
    json.dump(manifest, open(os.path.join(weights_dir, "manifest.json"), "w"), indent=1)


if __name__ == "__main__":
    commands = {"data": pack_data, "undata": unpack_data, "weights": pack_weights, "unweights": unpack_weights}
    if len(sys.argv) != 4 or sys.argv[1] not in commands:
        raise SystemExit(__doc__)
    commands[sys.argv[1]](sys.argv[2], sys.argv[3])
