//===- shardc_gpt.cpp - the Tiny Transformer on Tiny Shakespeare ----------===//
//
// Trains the byte-level Tiny Transformer (Model.h) over a mesh of simulated
// devices ["data"=D, "model"=M]: the batch split over "data", the attention
// heads and feed-forward columns over "model" (Megatron-style), both on a
// 2-D mesh; only the annotations differ between layouts. Generates text
// from its checkpoints.
//
//   shardc-gpt train [--data PATH] [--devices N] [--mesh data=D,model=M]
//                    [--steps S] [--batch B] [--lr LR] [--warmup W]
//                    [--seed S] [--eval-every K] [--eval-batches E]
//                    [--checkpoint-dir DIR] [--resume PATH] [--keep-checkpoints N]
//                    [--stop-after N] [--log-every K] [--clip-norm C]
//                    [--weight-decay WD] [--precision f32|bf16|tf32]
//                    [--fsdp on|off] [--remat none|block|dots]
//                    [--sequence-parallel [on|off]] [--emit-mlir PATH]
//                    [--d-model D --heads H --d-ff F --layers L --context T]
//
//   shardc-gpt generate --checkpoint PATH --prompt TEXT --tokens N
//                    [--temperature T] [--top-k K] [--seed S]
//                    [--mode padded|kv-cache] [--batch B] [--mesh data=D,model=M]
//                    [--precision f32|bf16|tf32]
//
//   shardc-gpt plan [--mesh data=D,model=M] [--batch B] [--profile h100|h200|FILE]
//                    [--precision f32|bf16|tf32] [--d-model D ... --context T]
//
// train: a progress line per log step, evaluation lines, and last one JSON line:
// steps, tokens_per_s, ms_per_step_median, train_loss_first and
// train_loss_last (this run's first and last steps) and val_loss (all three
// to float precision), val_ppl, peak_bytes_per_device, compile_s (and the
// layout and cache counters). generate: the prompt and the text as it is produced, then one
// JSON line: tokens_per_s, ms_per_token_median, compiles, cache_hits, mode,
// batch, prefills. plan: compiles the training step for each layout of the
// mesh without placing anything on devices and prints a table of memory,
// collectives and roofline times per device.
//
//===----------------------------------------------------------------------===//

#include "Cli.h"

#include <string>

int main(int argc, char **argv) {
  std::string command = argc >= 2 ? argv[1] : "";
  if (command == "--help" || command == "-h")
    gpt::cli::help();
  if (command == "generate")
    return gpt::cli::generateMain(argc, argv);
  if (command == "plan")
    return gpt::cli::planMain(argc, argv);
  return gpt::cli::trainMain(argc, argv);
}
