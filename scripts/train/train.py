"""Train the bundled toolbridge demo model: a llama-architecture transformer, from scratch, on the CPU.

Reads the token ids written by generate-data.ts (.train/data/), trains for a wall-clock budget, and exports raw f32
weights plus a manifest (.train/weights/) that export-gguf.ts turns into a GGUF with the project's writer.

The architecture matches llama.cpp's "llama" graph exactly, so no weight permutation is needed on export:
RMSNorm (eps 1e-5) -> attention with RoPE rotating ADJACENT pairs (x[2i], x[2i+1]), llama.cpp's NORM rope mode ->
residual -> RMSNorm -> SwiGLU FFN (down(silu(gate(x)) * up(x))) -> residual; final RMSNorm; output tied to the
token embedding. Runs on Debian's python3-torch 1.13 (no scaled_dot_product_attention there).

  /usr/bin/python3 scripts/train/train.py --steps 3600            train and export
  /usr/bin/python3 scripts/train/train.py --parity DIR           random-init export + reference logits (test)
"""

import argparse
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


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
        masks = (torch.full((P, P), float("-inf")).triu(1),
                 torch.cat((torch.zeros(T, P), torch.full((T, T), float("-inf")).triu(1)), dim=1))
        rope = ((self.cos[:P], self.sin[:P]), (self.cos[P:P + T], self.sin[P:P + T]))
        xp, xs = self.embed(prefix), self.embed(ids)
        for b in self.blocks:
            xp, xs = b.forward_shared_prefix(xp, xs, rope, masks)
        return self.norm(xs[positions]) @ self.embed.weight.t()

    def forward(self, ids):
        T = ids.shape[1]
        mask = torch.full((T, T), float("-inf")).triu(1)
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
        arr = p.detach().float().contiguous().numpy().astype("<f4")
        arr.tofile(os.path.join(out_dir, name + ".f32"))
        files[name] = list(arr.shape)
    manifest = {"vocab": c.vocab, "dim": c.dim, "layers": c.layers, "heads": c.heads, "ff": c.ff, "context": c.context,
                "rope_base": c.rope_base, "eps": c.eps, "tensors": files}
    if extra:
        manifest.update(extra)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def load_export(model, in_dir):
    """Warm start from an export() folder (same shapes): continue training a model on new data."""
    with open(os.path.join(in_dir, "manifest.json")) as f:
        shapes = json.load(f)["tensors"]
    params = {"token_embd": model.embed.weight, "output_norm": model.norm.weight}
    for i, b in enumerate(model.blocks):
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


def batches(offsets, tokens_per_batch, rng):
    """Length-bucketed batches: conversations of similar length together, so padding stays small."""
    lengths = offsets[1:] - offsets[:-1]
    order = np.argsort(lengths + rng.random(len(lengths)) * 8, kind="stable")
    out, cur, longest = [], [], 0
    for i in order:
        longest2 = max(longest, lengths[i])
        if cur and longest2 * (len(cur) + 1) > tokens_per_batch:
            out.append(cur)
            cur, longest2 = [], lengths[i]
        cur.append(i)
        longest = longest2
    if cur:
        out.append(cur)
    rng.shuffle(out)
    return out


def shared_prefix_length(ids, offsets):
    """How many leading tokens every conversation shares (the system prompt and the user header), none of them loss."""
    first = ids[offsets[0]:offsets[1]]
    n = len(first)
    for i in range(1, len(offsets) - 1):
        seq = ids[offsets[i]:offsets[i + 1]]
        m = min(n, len(seq))
        diff = np.nonzero(first[:m] != seq[:m])[0]
        n = int(diff[0]) if len(diff) else m
    return n


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


def train(args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    ids, mask, offsets = load_data(args.data)
    vocab = int(json.load(open(os.path.join(args.data, "vocab-size.json")))["vocab"])
    c = Config(vocab, dim=args.dim, layers=args.layers, heads=args.heads, ff=args.ff, context=args.context)
    model = Llama(c)
    if args.init:
        load_export(model, args.init)
        print(f"warm start from {args.init}", flush=True)
    params = sum(p.numel() for p in model.parameters())
    P = shared_prefix_length(ids, offsets)
    assert mask[offsets[0]:offsets[0] + P + 1].sum() == 0, "the shared prefix must carry no loss"
    prefix = torch.from_numpy(ids[offsets[0]:offsets[0] + P].astype(np.int64))[None]
    print(f"shared prefix {P} tokens", flush=True)
    print(f"params {params:,}  conversations {len(offsets) - 1:,}  tokens {len(ids):,}", flush=True)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.98), eps=1e-8)
    # A fixed step count makes a run reproducible (same data, seed and thread count → same weights); the wall-clock
    # budget is only a safety net, and the schedule follows whichever of the two ends first.
    budget = args.minutes * 60 if args.minutes else float("inf")
    total_steps = args.steps or float("inf")
    start = time.time()
    step, seen, epoch, last_log, last_save = 0, 0, 0, start, start
    smooth = None
    done = False
    while not done:
        epoch += 1
        for idx in batches(offsets, args.batch_tokens, rng):
            elapsed = time.time() - start
            frac = max(elapsed / budget, step / total_steps)
            if frac >= 1:
                done = True
                break
            warm = min(1.0, (step + 1) / args.warmup)
            lr = args.lr * warm * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * frac)))
            for g in opt.param_groups:
                g["lr"] = lr
            x, y = make_tensors(idx, ids, mask, offsets, 2, P)
            positions = y != -100
            logits = model.forward_shared_prefix(prefix, x, positions)
            loss = F.cross_entropy(logits, y[positions])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            seen += x.numel() + P
            smooth = loss.item() if smooth is None else 0.98 * smooth + 0.02 * loss.item()
            now = time.time()
            if now - last_log > 30:
                print(f"step {step} epoch {epoch} loss {smooth:.4f} lr {lr:.2e} tok/s {seen / (now - start):.0f} "
                      f"elapsed {(now - start) / 60:.1f}m", flush=True)
                last_log = now
            if now - last_save > args.save_every * 60:
                export(model, args.out, {"steps": step, "minutes": (now - start) / 60, "loss": smooth, "params": params})
                last_save = now
    minutes = (time.time() - start) / 60
    export(model, args.out, {"steps": step, "minutes": minutes, "loss": smooth, "params": params, "epochs": epoch,
                             "tokens_seen": seen})
    print(f"done: {step} steps, {epoch} epochs, {minutes:.1f} min, loss {smooth:.4f}, {seen / (minutes * 60):.0f} tok/s",
          flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=".train/data")
    ap.add_argument("--out", default=".train/weights")
    ap.add_argument("--minutes", type=float, default=0, help="wall-clock cap (0: none)")
    ap.add_argument("--steps", type=int, default=0, help="optimizer steps (0: until --minutes)")
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
    ap.add_argument("--parity", metavar="DIR")
    ap.add_argument("--vocab", type=int)
    ap.add_argument("--sequences")
    args = ap.parse_args()
    if args.parity:
        torch.set_num_threads(1)
        parity(args.parity, args.vocab, args.sequences)
    elif not args.steps and not args.minutes:
        ap.error("give --steps (reproducible) or --minutes (a wall-clock budget)")
    else:
        train(args)


if __name__ == "__main__":
    main()
