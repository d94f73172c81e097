#!/usr/bin/python3
"""Peer baseline: data-parallel Tiny Transformer training, PyTorch DDP on the CPU.

The model of ../shared/bench/tiny_transformer.py (byte vocab 256, d 256, 4 heads, FFN
1024 tanh GELU, 4 pre-LN blocks, learned positions, untied head), softmax
cross-entropy, AdamW (lr 3e-4, weight decay 0.01), on Tiny Shakespeare windows of
--seq-len bytes.

  --processes N (default 2): N processes on localhost, each pinned to one core with
      1 thread (torch intra-op and OpenBLAS), --batch-per-process windows each (default
      16), gradients averaged by DistributedDataParallel over gloo (127.0.0.1).
      The weak-scaling peer of `shardc-gpt train --devices N --batch 16N`.
  --processes 1: the same worker, spawned and timed the same way, pinned to core 0
      with 1 thread, but the plain model: no DDP wrapper and no process group
      (--single ddp wraps it in DDP with a world of 1 instead), as shardc's 1-device
      step has no all-reduce.

Timing as peer_transformer_train.py: --warmup-steps untimed steps, then the median of
--timed-steps step times (zero_grad, forward, backward, optimizer step; batch sampling
is not timed). A step ends when the slowest rank ends: the per-step maximum over ranks
is taken. tokens/s is global: processes x batch_per_process x seq_len / median step.
Prints progress to stderr and one JSON line last.
"""

import argparse
import math
import os
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.environ.get("SHARDC_PEERS", os.path.join(HERE, "..", "..", "shared", "bench"))
sys.path.insert(0, PEERS)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from common import (CpuMonitor, Timer, add_blas_flag, blas_info, cpu_model, emit,  # noqa: E402
                    env_info, limit_threads, log, median, use_blas, wait_for_quiet)
from tiny_transformer import DEFAULT_DATA, TinyTransformer, load_bytes, random_windows  # noqa: E402


def _worker(rank, world, port, args, queue):
    os.sched_setaffinity(0, {rank % os.cpu_count()})
    limit_threads(1)
    distributed = world > 1 or args.single == "ddp"
    if distributed:
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                                rank=rank, world_size=world)
    torch.manual_seed(args.seed)                 # the same initial weights on every rank
    model = TinyTransformer(max_len=args.seq_len, gelu=args.gelu)
    params = model.num_params()
    if distributed:
        # The causal masks are bool buffers, the same on every rank, which gloo cannot
        # broadcast: DDP leaves them alone.
        DDP._set_params_and_buffers_to_ignore_for_model(
            model, [name for name, _ in model.named_buffers() if name.endswith("causal")])
        model = DDP(model)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    train_data, _ = load_bytes(args.data)
    gen = torch.Generator().manual_seed(1000 * (args.seed + 1) + rank)  # each rank its windows
    times, losses = [], []
    for step in range(args.warmup_steps + args.timed_steps):
        x, y = random_windows(train_data, args.batch_per_process, args.seq_len, gen)
        with Timer() as t:
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
            loss.backward()
            opt.step()
        losses.append(loss.item())
        if step >= args.warmup_steps:
            times.append(t.elapsed)
        if rank == 0 and (step % 10 == 0 or step == args.warmup_steps + args.timed_steps - 1):
            log(f"step {step:4d}  loss {losses[-1]:.4f}  {1e3 * t.elapsed:.0f} ms")
    if distributed:
        ts = torch.tensor(times, dtype=torch.float64)
        dist.all_reduce(ts, op=dist.ReduceOp.MAX)
        times = ts.tolist()
        ls = torch.tensor(losses, dtype=torch.float64)
        dist.all_reduce(ls)                      # the mean loss over ranks
        losses = (ls / world).tolist()
    if rank == 0:
        queue.put((times, losses, params))
    if distributed:
        dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--processes", type=int, default=2)
    p.add_argument("--single", choices=["plain", "ddp"], default="plain",
                   help="with --processes 1: the plain model (default) or DDP with world 1")
    p.add_argument("--data", default=DEFAULT_DATA)
    p.add_argument("--batch-per-process", type=int, default=16)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--warmup-steps", type=int, default=3, help="untimed steps before timing")
    p.add_argument("--timed-steps", type=int, default=20, help="steps in the median")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--gelu", choices=["tanh", "exact"], default="tanh")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quiet-wait", type=float, default=300, help="max s to wait for idle CPUs")
    add_blas_flag(p)
    args = p.parse_args()
    use_blas(args.blas)
    if args.processes < 1 or args.timed_steps < 1:
        p.error("--processes and --timed-steps must be at least 1")

    import torch.multiprocessing as mp
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    world = args.processes
    quiet = wait_for_quiet(args.quiet_wait)
    monitor = CpuMonitor().start()
    ctx = mp.get_context("spawn")
    queue = ctx.SimpleQueue()
    with Timer() as wall:
        mp.start_processes(_worker, args=(world, port, args, queue), nprocs=world,
                           join=True, start_method="spawn")
    times, losses, params = queue.get()
    load = monitor.stop()

    med = median(times)
    tokens_per_step = world * args.batch_per_process * args.seq_len
    mode = "ddp" if world > 1 or args.single == "ddp" else "plain (no DDP wrapper)"
    emit({"bench": "peer_transformer_ddp",
          "processes": world, "batch_per_process": args.batch_per_process,
          "global_batch": world * args.batch_per_process, "seq_len": args.seq_len,
          "mode": mode, "threads_per_process": 1,
          "tokens_per_s": round(tokens_per_step / med, 1),
          "ms_per_step_median": round(1e3 * med, 1),
          "ms_per_step_min": round(1e3 * min(times), 1),
          "ms_per_step_max": round(1e3 * max(times), 1),
          "warmup_steps": args.warmup_steps, "timed_steps": args.timed_steps,
          "config": {"params": params, "optimizer": "AdamW", "lr": args.lr,
                     "weight_decay": args.weight_decay, "gelu": args.gelu, "seed": args.seed,
                     "data": os.path.abspath(args.data)},
          "loss_first": round(losses[0], 4), "loss_last": round(losses[-1], 4),
          "ppl_last": round(math.exp(losses[-1]), 3), "wall_s": round(wall.elapsed, 1),
          "machine_quiet_at_start": quiet, "load_during_run": load,
          "cpu": cpu_model()["model_name"], "blas": blas_info(), "env": env_info()})


if __name__ == "__main__":
    main()
