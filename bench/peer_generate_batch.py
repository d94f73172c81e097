#!/usr/bin/python3
"""PyTorch's KV-cache decoding of a batch: the peer of `shardc-gpt generate --mode kv-cache --batch B`.

  bench/peer_generate_batch.py [--batch 8] [--new-tokens 200] [--warmup-tokens 200] [--threads 2]
                               [--precision f32|bf16]

The decoding of ../shared/bench/peer_generate.py's `kvcache` row (a prefill of
the prompt that keeps each block's keys and values, one position per token
against the cache, the last half of the window prefilled again when it is
full), with its own functions, on a batch of B copies of the prompt "ROMEO:",
each greedy. Weights: the seeded untrained init (speed does not depend on
them). --precision bf16 runs both generations under CPU autocast to bf16,
as PyTorch's mixed precision does (the peer of `--precision bf16`). Times one generation after an untimed one of --warmup-tokens; prints
one JSON line whose tokens_per_s counts the bytes of all B sequences.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.environ.get("SHARDC_PEERS", os.path.join(HERE, "..", "..", "shared", "bench"))
sys.path.insert(0, PEERS)

import torch  # noqa: E402

from common import limit_threads, use_blas  # noqa: E402
from peer_generate import _forward_cached  # noqa: E402
from tiny_transformer import TinyTransformer  # noqa: E402


@torch.inference_mode()
def generate_batch(model, prompt, new_tokens, batch):
    c = model.config
    hd = c["d_model"] // c["n_heads"]
    caches = [[torch.zeros(batch, c["n_heads"], model.max_len, hd) for _ in range(2)]
              for _ in model.blocks]
    seqs = [list(prompt)[-model.max_len:] for _ in range(batch)]
    outs = [[] for _ in range(batch)]
    logits = _forward_cached(model, torch.tensor(seqs), caches, 0)
    pos = len(seqs[0])
    for _ in range(new_tokens):
        toks = torch.argmax(logits, dim=-1).tolist()
        for s, o, t in zip(seqs, outs, toks):
            s.append(t)
            o.append(t)
        if pos == model.max_len:  # full: keep the last half, prefill it
            seqs = [s[-(model.max_len // 2):] for s in seqs]
            logits = _forward_cached(model, torch.tensor(seqs), caches, 0)
            pos = len(seqs[0])
        else:
            logits = _forward_cached(model, torch.tensor([[t] for t in toks]), caches, pos)
            pos += 1
    return outs


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--prompt", default="ROMEO:")
    p.add_argument("--new-tokens", type=int, default=200)
    p.add_argument("--warmup-tokens", type=int, default=200)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--precision", choices=["f32", "bf16"], default="f32")
    args = p.parse_args()
    use_blas("openmp")
    limit_threads(args.threads, None)
    torch.manual_seed(args.seed)
    model = TinyTransformer().eval()
    prompt = list(args.prompt.encode())
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.precision == "bf16"):
        generate_batch(model, prompt, args.warmup_tokens, args.batch)
        start = time.perf_counter()
        outs = generate_batch(model, prompt, args.new_tokens, args.batch)
        wall = time.perf_counter() - start
    print(json.dumps({"bench": "peer_generate_batch", "batch": args.batch,
                      "new_tokens": args.new_tokens, "warmup_tokens": args.warmup_tokens,
                      "threads": args.threads, "precision": args.precision,
                      "torch": torch.__version__,
                      "tokens_per_s": round(args.batch * args.new_tokens / wall, 1),
                      "ms_per_step": round(1e3 * wall / args.new_tokens, 3),
                      "rows_agree": all(o == outs[0] for o in outs)}))


if __name__ == "__main__":
    main()
