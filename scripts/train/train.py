"""Train the bundled toolbridge demo model: a llama-architecture transformer, from scratch, on the CPU or a CUDA GPU.

Reads the token ids written by generate-data.ts (.train/data/), trains for a wall-clock budget, and exports raw f32
weights plus a manifest (.train/weights/) that export-gguf.ts turns into a GGUF with the project's writer.

The architecture matches llama.cpp's "llama" graph exactly, so no weight permutation is needed on export:
RMSNorm (eps 1e-5) -> attention with RoPE rotating ADJACENT pairs (x[2i], x[2i+1]), llama.cpp's NORM rope mode ->
residual -> RMSNorm -> SwiGLU FFN (down(silu(gate(x)) * up(x))) -> residual; final RMSNorm; output tied to the
token embedding. Runs on Debian's python3-torch 1.13 (no scaled_dot_product_attention there) on the CPU, and on a
CUDA GPU with a current PyTorch (--device cuda: bf16 autocast over f32 weights, fused attention).

  /usr/bin/python3 scripts/train/train.py --steps 3600            train and export
  /usr/bin/python3 scripts/train/train.py --parity DIR           random-init export + reference logits (test)
"""

import argparse
import contextlib
import copy
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


# Fused attention where this PyTorch has it (2.0+); the same function as the explicit softmax below.
SDPA = getattr(F, "scaled_dot_product_attention", None)


class Config:
    def __init__(self, vocab, dim=224, layers=4, heads=4, ff=608, context=1024, rope_base=10000.0, eps=1e-5):
        self.vocab, self.dim, self.layers, self.heads, self.ff = vocab, dim, layers, heads, ff
        self.context, self.rope_base, self.eps = context, rope_base, eps


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(head_dim, length, base):
    inv = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    angles = torch.arange(length, dtype=torch.float64)[:, None] * inv[None, :]
    return torch.cos(angles).float(), torch.sin(angles).float()


def apply_rope(x, cos, sin):
    # x: (B, H, T, D); rotate adjacent pairs like llama.cpp's LLAMA_ROPE_TYPE_NORM.
    x0, x1 = x[..., 0::2], x[..., 1::2]
    r0 = x0 * cos - x1 * sin
    r1 = x0 * sin + x1 * cos
    return torch.stack((r0, r1), dim=-1).flatten(-2)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.heads, self.hd = c.heads, c.dim // c.heads
        self.attn_norm = RMSNorm(c.dim, c.eps)
        self.wq = nn.Linear(c.dim, c.dim, bias=False)
        self.wk = nn.Linear(c.dim, c.dim, bias=False)
        self.wv = nn.Linear(c.dim, c.dim, bias=False)
        self.wo = nn.Linear(c.dim, c.dim, bias=False)
        self.ffn_norm = RMSNorm(c.dim, c.eps)
        self.w_gate = nn.Linear(c.dim, c.ff, bias=False)
        self.w_up = nn.Linear(c.dim, c.ff, bias=False)
        self.w_down = nn.Linear(c.ff, c.dim, bias=False)

    def qkv(self, x, cos, sin):
        B, T, C = x.shape
        h = self.attn_norm(x)
        q = self.wq(h).view(B, T, self.heads, self.hd).transpose(1, 2)
        k = self.wk(h).view(B, T, self.heads, self.hd).transpose(1, 2)
        v = self.wv(h).view(B, T, self.heads, self.hd).transpose(1, 2)
        return apply_rope(q, cos, sin), apply_rope(k, cos, sin), v

    def finish(self, x, q, k, v, mask):
        B, T, C = x.shape
        if SDPA is not None and q.is_cuda:
            dt = v.dtype  # under autocast v is bf16, while RoPE's f32 tables promote q and k
            y = SDPA(q.to(dt), k.to(dt), v, attn_mask=mask.to(dt))
        else:
            att = (q @ k.transpose(-2, -1)) / math.sqrt(self.hd) + mask
            y = F.softmax(att, dim=-1) @ v
        x = x + self.wo(y.transpose(1, 2).reshape(B, T, C))
        h = self.ffn_norm(x)
        return x + self.w_down(F.silu(self.w_gate(h)) * self.w_up(h))

    def forward(self, x, cos, sin, mask):
        q, k, v = self.qkv(x, cos, sin)
        return self.finish(x, q, k, v, mask)

    def forward_shared_prefix(self, xp, xs, rope, masks):
        """The same layer when every sequence starts with one shared prefix (the constant system prompt): the prefix
        is computed once and its keys/values broadcast — exactly the full computation, with half the work."""
        (cp, sp), (cs, ss) = rope
        qp, kp, vp = self.qkv(xp, cp, sp)
        qs, ks, vs = self.qkv(xs, cs, ss)
        B = xs.shape[0]
        k = torch.cat((kp.expand(B, -1, -1, -1), ks), dim=2)
        v = torch.cat((vp.expand(B, -1, -1, -1), vs), dim=2)
        return self.finish(xp, qp, kp, vp, masks[0]), self.finish(xs, qs, k, v, masks[1])


class Llama(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embed = nn.Embedding(c.vocab, c.dim)
        self.blocks = nn.ModuleList(Block(c) for _ in range(c.layers))
        self.norm = RMSNorm(c.dim, c.eps)
        cos, sin = rope_tables(c.dim // c.heads, c.context, c.rope_base)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        nn.init.normal_(self.embed.weight, std=0.02)
        for b in self.blocks:
            for lin in (b.wq, b.wk, b.wv, b.w_gate, b.w_up):
                nn.init.normal_(lin.weight, std=0.02)
            for lin in (b.wo, b.w_down):
                nn.init.normal_(lin.weight, std=0.02 / math.sqrt(2 * c.layers))

    def forward_shared_prefix(self, prefix, ids, positions):
        """Logits at `positions` (a (B, T) bool mask) of `ids` continuing the shared `prefix` (1, P)."""
        P, T = prefix.shape[1], ids.shape[1]
        d = ids.device
        masks = (torch.full((P, P), float("-inf"), device=d).triu(1),
                 torch.cat((torch.zeros(T, P, device=d), torch.full((T, T), float("-inf"), device=d).triu(1)), dim=1))
        rope = ((self.cos[:P], self.sin[:P]), (self.cos[P:P + T], self.sin[P:P + T]))
        xp, xs = self.embed(prefix), self.embed(ids)
        for b in self.blocks:
            xp, xs = b.forward_shared_prefix(xp, xs, rope, masks)
        return self.norm(xs[positions]) @ self.embed.weight.t()

    def forward(self, ids):
        T = ids.shape[1]
        mask = torch.full((T, T), float("-inf"), device=ids.device).triu(1)
        x = self.embed(ids)
        cos, sin = self.cos[:T], self.sin[:T]
        for b in self.blocks:
            x = b(x, cos, sin, mask)
        return self.norm(x) @ self.embed.weight.t()


def export(model, out_dir, extra=None):
    """Raw little-endian f32 tensors in PyTorch (out, in) layout + manifest.json for export-gguf.ts."""
    os.makedirs(out_dir, exist_ok=True)
    c = model.c
    tensors = {"token_embd": model.embed.weight, "output_norm": model.norm.weight}
    for i, b in enumerate(model.blocks):
        for name, p in (("attn_norm", b.attn_norm.weight), ("wq", b.wq.weight), ("wk", b.wk.weight), ("wv", b.wv.weight),
                        ("wo", b.wo.weight), ("ffn_norm", b.ffn_norm.weight), ("w_gate", b.w_gate.weight),
                        ("w_up", b.w_up.weight), ("w_down", b.w_down.weight)):
            tensors[f"blk.{i}.{name}"] = p
    files = {}
    for name, p in tensors.items():
        arr = p.detach().float().cpu().contiguous().numpy().astype("<f4")
        arr.tofile(os.path.join(out_dir, name + ".f32"))
        files[name] = list(arr.shape)
    manifest = {"vocab": c.vocab, "dim": c.dim, "layers": c.layers, "heads": c.heads, "ff": c.ff, "context": c.context,
                "rope_base": c.rope_base, "eps": c.eps, "tensors": files}
    if extra:
        manifest.update(extra)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def load_export(model, in_dir):
    """Warm start from an export() folder: same width and vocabulary. A model with more layers than the export gets the
    export's layers first and starts each extra one as the identity (its attention and feed-forward outputs zero, so the
    residual stream passes through unchanged): the warm-started model computes exactly what the export computed, then
    learns to use the new layers."""
    with open(os.path.join(in_dir, "manifest.json")) as f:
        manifest = json.load(f)
    shapes = manifest["tensors"]
    params = {"token_embd": model.embed.weight, "output_norm": model.norm.weight}
    for i, b in enumerate(model.blocks):
        if i >= manifest["layers"]:
            with torch.no_grad():
                b.wo.weight.zero_()
                b.w_down.weight.zero_()
            continue
        for name, p in (("attn_norm", b.attn_norm.weight), ("wq", b.wq.weight), ("wk", b.wk.weight), ("wv", b.wv.weight),
                        ("wo", b.wo.weight), ("ffn_norm", b.ffn_norm.weight), ("w_gate", b.w_gate.weight),
                        ("w_up", b.w_up.weight), ("w_down", b.w_down.weight)):
            params[f"blk.{i}.{name}"] = p
    with torch.no_grad():
        for name, p in params.items():
            data = np.fromfile(os.path.join(in_dir, name + ".f32"), dtype="<f4").reshape(shapes[name])
            p.copy_(torch.from_numpy(data))


def parity(out_dir, vocab, seqs_file):
    torch.manual_seed(1)
    c = Config(vocab, dim=64, layers=2, heads=4, ff=96)
    model = Llama(c)
    # Larger random norms than at init so a mistake in any tensor shows up in the logits.
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    export(model, out_dir)
    with open(seqs_file) as f:
        seqs = json.load(f)
    result = []
    with torch.no_grad():
        for s in seqs:
            logits = model(torch.tensor([s]))[0]
            result.append(logits.tolist())
    with open(os.path.join(out_dir, "logits.json"), "w") as f:
        json.dump(result, f)


def load_data(data_dir):
    ids = np.fromfile(os.path.join(data_dir, "train.ids.i32"), dtype="<i4")
    mask = np.fromfile(os.path.join(data_dir, "train.mask.u8"), dtype=np.uint8)
    offsets = np.fromfile(os.path.join(data_dir, "train.offsets.i32"), dtype="<i4")
    return ids, mask, offsets


def batches(offsets, tokens_per_batch, rng, groups):
    """Length-bucketed batches within each group (conversations with the shared prefix, and the others): conversations
    of similar length together, so padding stays small."""
    lengths = offsets[1:] - offsets[:-1]
    out = []
    for group in groups:
        order = group[np.argsort(lengths[group] + rng.random(len(group)) * 8, kind="stable")]
        cur, longest = [], 0
        for i in order:
            longest2 = max(longest, lengths[i])
            if cur and longest2 * (len(cur) + 1) > tokens_per_batch:
                out.append(cur)
                cur, longest2 = [], lengths[i]
            cur.append(int(i))
            longest = longest2
        if cur:
            out.append(cur)
    rng.shuffle(out)
    return out


def shared_prefix(ids, offsets, mask):
    """The leading tokens most conversations share — the default catalogue's system prompt and the user header — and,
    per conversation, whether it starts with them. Conversations with another catalogue (a /v1 client's own tools)
    are batched apart and run whole. Returns (reference conversation, prefix length, has-prefix flags)."""
    lengths = offsets[1:] - offsets[:-1]
    sample = range(min(len(offsets) - 1, 2000))
    heads = {}
    for i in sample:
        key = ids[offsets[i]:offsets[i] + 48].tobytes()
        heads[key] = heads.get(key, 0) + 1
    common = max(heads, key=heads.get)
    ref = next(i for i in sample if ids[offsets[i]:offsets[i] + 48].tobytes() == common)
    first = ids[offsets[ref]:offsets[ref + 1]]
    # No further than the reference's first loss token; then as far as most of the sample agrees (user text differs).
    n = int(np.nonzero(mask[offsets[ref]:offsets[ref + 1]])[0][0]) - 1
    while n > 0:
        agree = sum(1 for i in sample if lengths[i] > n and np.array_equal(ids[offsets[i]:offsets[i] + n], first[:n]))
        if agree >= 0.6 * len(sample):
            break
        n -= 1
    has = np.array([lengths[i] > n and np.array_equal(ids[offsets[i]:offsets[i] + n], first[:n])
                    for i in range(len(offsets) - 1)])
    return ref, n, has


def make_tensors(idx, ids, mask, offsets, pad, P):
    """Inputs after the shared prefix, and their targets (the next token where it carries loss, else -100)."""
    lengths = [offsets[i + 1] - offsets[i] - P for i in idx]
    T = max(lengths)
    x = np.full((len(idx), T), pad, dtype=np.int64)
    y = np.full((len(idx), T), -100, dtype=np.int64)
    for r, i in enumerate(idx):
        a, b = offsets[i] + P, offsets[i + 1]
        seq = ids[a:b]
        x[r, : b - a] = seq
        target = seq[1:].astype(np.int64).copy()
        target[mask[a + 1 : b] == 0] = -100
        y[r, : b - a - 1] = target
    return torch.from_numpy(x), torch.from_numpy(y)


def checkpoint_config(args, vocab, P):
    """What a checkpoint must agree on to be resumed: the model's shape, the data and the schedule."""
    return {"vocab": vocab, "dim": args.dim, "layers": args.layers, "heads": args.heads, "ff": args.ff,
            "context": args.context, "steps": args.steps, "lr": args.lr, "warmup": args.warmup, "seed": args.seed,
            "batch_tokens": args.batch_tokens, "prefix": int(P), "data": data_fingerprint(args.data),
            "init": args.init or None}


def data_fingerprint(data_dir):
    import hashlib
    h = hashlib.sha256()
    for name in ("train.ids.i32", "train.mask.u8", "train.offsets.i32"):
        with open(os.path.join(data_dir, name), "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()[:16]


def save_checkpoint(path, state):
    """Written whole, then renamed: a run killed mid-write leaves the previous checkpoint intact."""
    tmp = path + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, path)


def train(args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    if device.type == "cuda":
        # bf16 matrix work over f32 master weights; TF32 for what autocast leaves in f32.
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    fast = {"on": device.type == "cuda"}

    def autocast():
        return torch.autocast("cuda", dtype=torch.bfloat16) if fast["on"] else contextlib.nullcontext()
    rng = np.random.default_rng(args.seed)
    ids, mask, offsets = load_data(args.data)
    vocab = int(json.load(open(os.path.join(args.data, "vocab-size.json")))["vocab"])
    c = Config(vocab, dim=args.dim, layers=args.layers, heads=args.heads, ff=args.ff, context=args.context)
    model = Llama(c)
    if args.init:
        load_export(model, args.init)
        print(f"warm start from {args.init}", flush=True)
    model.to(device)
    params = sum(p.numel() for p in model.parameters())
    ref, P, has_prefix = shared_prefix(ids, offsets, mask)
    assert mask[offsets[ref]:offsets[ref] + P + 1].sum() == 0, "the shared prefix must carry no loss"
    prefix = torch.from_numpy(ids[offsets[ref]:offsets[ref] + P].astype(np.int64))[None].to(device)
    groups = [np.nonzero(has_prefix)[0], np.nonzero(~has_prefix)[0]]
    groups = [g for g in groups if len(g)]
    print(f"shared prefix {P} tokens ({has_prefix.mean() * 100:.0f}% of conversations)", flush=True)
    print(f"params {params:,}  conversations {len(offsets) - 1:,}  tokens {len(ids):,}  device {device}", flush=True)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.98), eps=1e-8)

    def train_step(idx, lr):
        for g in opt.param_groups:
            g["lr"] = lr
        shared = bool(has_prefix[idx[0]])
        p = P if shared else 0
        x, y = make_tensors(idx, ids, mask, offsets, 2, p)
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        positions = y != -100
        with autocast():
            if shared:
                logits = model.forward_shared_prefix(prefix, x, positions)
            else:
                logits = model(x)[positions]
        loss = F.cross_entropy(logits.float(), y[positions])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss, x.numel() + p

    if args.fit_minutes and not args.steps:
        # Choose the step count that fills the budget on this machine, then train exactly that many steps (printed and
        # recorded, so the run can be repeated with --steps): time a few steps on throwaway copies, then start over.
        saved_model = copy.deepcopy(model.state_dict())
        saved_opt = copy.deepcopy(opt.state_dict())
        probe = batches(offsets, args.batch_tokens, np.random.default_rng(args.seed + 1000), groups)
        try:
            train_step(probe[0], 0.0)
        except Exception as error:  # noqa: BLE001 — a PyTorch without what the fast path uses: train in f32 instead
            if not fast["on"]:
                raise
            global SDPA
            print(f"bf16/fused attention failed ({error!r}); training in f32", flush=True)
            fast["on"], SDPA = False, None
            model.load_state_dict(saved_model)
            opt.load_state_dict(saved_opt)
        # The first steps of each new batch shape are slow on a GPU (kernel selection, allocator growth): time later ones.
        warm = min(20, len(probe) // 2)
        for idx in probe[:warm]:
            train_step(idx, 0.0)
        if device.type == "cuda":
            torch.cuda.synchronize()
        t0, n = time.time(), max(1, min(40, len(probe) - warm))
        for idx in probe[warm:warm + n]:
            train_step(idx, 0.0)
        if device.type == "cuda":
            torch.cuda.synchronize()
        per_step = (time.time() - t0) / n
        model.load_state_dict(saved_model)
        opt.load_state_dict(saved_opt)
        torch.manual_seed(args.seed)
        args.steps = max(1, int(args.fit_minutes * 60 / per_step))
        print(f"fit: {per_step * 1000:.1f} ms a step -> --steps {args.steps} for {args.fit_minutes} min", flush=True)
    # A fixed step count makes a run reproducible (same data, seed and thread count → same weights on the CPU; on a GPU
    # up to its non-deterministic reductions), resumed or not: a checkpoint holds the weights, the optimizer, the random
    # states and the epoch's batch order, so a resumed run takes exactly the steps an uninterrupted one would. The
    # wall-clock budget is only a safety net.
    config = checkpoint_config(args, vocab, P)
    ckpt_path = os.path.join(args.out, "checkpoint.pt")
    step, seen, epoch, smooth, trained_seconds = 0, 0, 0, None, 0.0
    epoch_batches, batch_index = None, 0
    if args.resume and os.path.exists(ckpt_path):
        state = torch.load(ckpt_path, map_location=device, weights_only=False)
        if state["config"] != config:
            raise SystemExit(f"{ckpt_path} was made with other settings or data; delete it or run without --resume")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["torch_rng"].cpu())
        rng.bit_generator.state = state["numpy_rng"]
        step, seen, epoch, smooth = state["step"], state["seen"], state["epoch"], state["smooth"]
        epoch_batches, batch_index = state["epoch_batches"], state["batch_index"]
        trained_seconds = state["seconds"]
        print(f"resumed from {ckpt_path} at step {step} (epoch {epoch}, {trained_seconds / 60:.1f} min trained)",
              flush=True)
    os.makedirs(args.out, exist_ok=True)

    def checkpoint():
        save_checkpoint(ckpt_path, {
            "config": config, "model": model.state_dict(), "optimizer": opt.state_dict(),
            "torch_rng": torch.get_rng_state(), "numpy_rng": rng.bit_generator.state, "step": step, "seen": seen,
            "epoch": epoch, "smooth": smooth, "epoch_batches": epoch_batches, "batch_index": batch_index,
            "seconds": trained_seconds + (time.time() - start)})

    budget = args.minutes * 60 if args.minutes else float("inf")
    total_steps = args.steps or float("inf")
    start = time.time()
    last_log, last_save = start, start
    session_seen = 0
    done = False
    while not done:
        if epoch_batches is None or batch_index >= len(epoch_batches):
            epoch += 1
            epoch_batches, batch_index = batches(offsets, args.batch_tokens, rng, groups), 0
        while batch_index < len(epoch_batches):
            if step >= total_steps or time.time() - start >= budget or step == args.stop_at_step:
                done = True
                break
            idx = epoch_batches[batch_index]
            frac = step / total_steps if args.steps else (time.time() - start) / budget
            warm = min(1.0, (step + 1) / args.warmup)
            lr = args.lr * warm * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * frac)))
            loss, tokens = train_step(idx, lr)
            step += 1
            batch_index += 1
            seen += tokens
            session_seen += tokens
            smooth = loss.item() if smooth is None else 0.98 * smooth + 0.02 * loss.item()
            now = time.time()
            if now - last_log > 30:
                print(f"step {step} epoch {epoch} loss {smooth:.4f} lr {lr:.2e} tok/s {session_seen / max(1, now - start):.0f} "
                      f"elapsed {(now - start) / 60:.1f}m", flush=True)
                last_log = now
            if now - last_save > args.save_every * 60:
                checkpoint()
                export(model, args.out, {"steps": step, "minutes": (trained_seconds + now - start) / 60,
                                         "loss": smooth, "params": params, "device": str(device)})
                last_save = now
    minutes = (trained_seconds + time.time() - start) / 60
    checkpoint()
    export(model, args.out, {"steps": step, "minutes": minutes, "loss": smooth, "params": params, "epochs": epoch,
                             "tokens_seen": seen, "device": device_name(device)})
    print(f"done: {step} steps, {epoch} epochs, {minutes:.1f} min, loss {smooth:.4f}", flush=True)


def device_name(device):
    return torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=".train/data")
    ap.add_argument("--out", default=".train/weights")
    ap.add_argument("--minutes", type=float, default=0, help="wall-clock cap (0: none)")
    ap.add_argument("--steps", type=int, default=0, help="optimizer steps (0: until --minutes, or --fit-minutes)")
    ap.add_argument("--fit-minutes", type=float, default=0,
                    help="time a few steps, then train as many steps as fill this many minutes (printed)")
    ap.add_argument("--device", default="cpu", help="cpu, or cuda for an NVIDIA GPU")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ff", type=int, default=320)
    ap.add_argument("--context", type=int, default=1024, help="longest sequence (the GGUF's context length)")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=40)
    ap.add_argument("--batch-tokens", type=int, default=6144)
    ap.add_argument("--save-every", type=float, default=5)
    ap.add_argument("--init", metavar="DIR", help="warm start from an earlier export (same sizes and vocabulary)")
    ap.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt when it matches the settings")
    ap.add_argument("--stop-at-step", type=int, default=-1, help="checkpoint and stop there, as an interruption would")
    ap.add_argument("--parity", metavar="DIR")
    ap.add_argument("--vocab", type=int)
    ap.add_argument("--sequences")
    args = ap.parse_args()
    if args.parity:
        torch.set_num_threads(1)
        parity(args.parity, args.vocab, args.sequences)
    elif not args.steps and not args.minutes and not args.fit_minutes:
        ap.error("give --steps (reproducible), --fit-minutes or --minutes (a wall-clock budget)")
    else:
        train(args)


if __name__ == "__main__":
    main()
