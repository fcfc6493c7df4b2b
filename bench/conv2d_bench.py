#!/usr/bin/env python3
"""conv2d: every fastconv algorithm beside PyTorch's torch.nn.functional.conv2d (oneDNN on the
CPU) in one run — seed 002's three sweeps (its Figs. 3–5) scaled to a small CPU:

  (a) input size 8 … 224, 5×5 kernel, C = K = 1 and C = K = 16
  (b) kernel size 3 … 15 at 112×112, C = K = 16
  (c) channels C = K = 1 … 64 at 56×56, 3×3 kernel

batch 8, float32, padding 0, stride 1. Each fastconv algorithm is planned once per shape (kernel
spectra, Winograd filter transforms and FFT plans made then, as for inference) and its execute()
timed; PyTorch is timed on the same tensors with the same thread count. PyTorch and the
algorithms are timed in rounds, each round running every one of them once (each round starting
one further on), so that a slow spell of the machine falls on all of them alike. Times are
medians of at least --repeats rounds (and at least --min-time seconds of runs per contender), in
ms.

    build/venv/bin/python bench/conv2d_bench.py --threads 2 --json /tmp/conv2d.json
    build/venv/bin/python bench/conv2d_bench.py --from-json /tmp/conv2d.json --table --plot docs/bench-conv2d.png

Needs the fastconv package (pip install .), PyTorch and matplotlib (for --plot) in the same
Python; --table prints the Markdown tables of docs/benchmarks.md: ms per call and PyTorch's time
divided by each algorithm's (> 1: fastconv is faster).
"""

import argparse
import json
import statistics
import sys
import time

ALGORITHMS = ["direct", "im2col_gemm", "fft2d", "winograd", "polyhankel", "polyhankel_merged", "auto"]


def sweeps(quick: bool):
    sizes = [8, 16, 32, 56, 112, 224] if not quick else [16, 56]
    kernels = [3, 5, 7, 9, 11, 13, 15] if not quick else [3, 9]
    channels = [1, 2, 4, 8, 16, 32, 64] if not quick else [1, 16]
    for c in (1, 16):
        for s in sizes:
            yield f"a:C={c}", dict(n=8, c=c, k=c, h=s, w=s, kh=5, kw=5), s
    for k in kernels:
        yield "b", dict(n=8, c=16, k=16, h=112, w=112, kh=k, kw=k), k
    for c in channels:
        yield "c", dict(n=8, c=c, k=c, h=56, w=56, kh=3, kw=3), c


def median_ms(runs: dict, repeats: int, min_time: float) -> dict:
    """The median ms of each of `runs` (name: callable), timed in interleaved rounds."""
    for run in runs.values():
        run()  # warm-up: first-touch memory, lazy initialisation
    times = {name: [] for name in runs}
    start = time.perf_counter()
    rounds = 0
    names = list(runs)
    while rounds < repeats or time.perf_counter() - start < min_time * len(runs):
        # Each round starts one contender further on, so that no contender always runs right
        # after the same one (whose working set it would find in, or evict from, the caches).
        shift = rounds % len(names)
        for name in names[shift:] + names[:shift]:
            t0 = time.perf_counter()
            runs[name]()
            times[name].append((time.perf_counter() - t0) * 1e3)
        rounds += 1
        if rounds >= 200:
            break
    return {name: statistics.median(t) for name, t in times.items()}


def measure(args) -> list:
    import numpy as np
    import torch

    import fastconv

    torch.set_num_threads(args.threads)
    records = []
    for sweep, shape, x_value in sweeps(args.quick):
        rng = np.random.default_rng(1)
        x = rng.standard_normal((shape["n"], shape["c"], shape["h"], shape["w"])).astype(np.float32)
        w = rng.standard_normal((shape["k"], shape["c"], shape["kh"], shape["kw"])).astype(np.float32)
        xt, wt = torch.from_numpy(x), torch.from_numpy(w)
        record = dict(sweep=sweep, x=x_value, **shape, threads=args.threads)
        runs = {"torch": lambda: torch.nn.functional.conv2d(xt, wt)}
        for algorithm in ALGORITHMS:
            if algorithm == "winograd" and (shape["kh"], shape["kw"]) != (3, 3):
                continue
            plan = fastconv.Conv2dPlan(x.shape, w, algorithm=algorithm, threads=args.threads)
            if algorithm == "auto":
                record["auto_choice"] = plan.algorithm
            runs[algorithm] = lambda plan=plan: plan(x)
        with torch.no_grad():
            record.update(median_ms(runs, args.repeats, args.min_time))
        print(json.dumps(record), file=sys.stderr, flush=True)  # progress
        records.append(record)
    return records


def sweep_label(sweep: str) -> str:
    if sweep == "b":
        return "kernel size (112², C = K = 16)"
    if sweep == "c":
        return "C = K (56², 3×3)"
    return f"input size (5×5, C = K = {sweep.split('=')[1]})"


def table(records: list) -> str:
    lines = []
    for sweep in dict.fromkeys(r["sweep"] for r in records):
        rows = [r for r in records if r["sweep"] == sweep]
        label = sweep_label(sweep)
        lines.append(f"\n**Sweep {sweep[0]}: {label}**, batch 8, float32, {rows[0]['threads']} threads; ms per call, "
                     "and in brackets PyTorch's time ÷ fastconv's\n")
        lines.append("| " + label.split(" (")[0] + " | PyTorch | " + " | ".join(ALGORITHMS) + " | auto chose |")
        lines.append("|---" * (len(ALGORITHMS) + 3) + "|")
        for r in rows:
            cells = []
            for a in ALGORITHMS:
                cells.append(f"{r[a]:.3g} ({r['torch'] / r[a]:.2f}×)" if a in r else "—")
            lines.append(f"| {r['x']} | {r['torch']:.3g} | " + " | ".join(cells) + f" | {r.get('auto_choice', '')} |")
    return "\n".join(lines)


def plot(records: list, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sweeps_seen = list(dict.fromkeys(r["sweep"] for r in records))
    fig, axes = plt.subplots(1, len(sweeps_seen), figsize=(5 * len(sweeps_seen), 4.2), squeeze=False)
    for ax, sweep in zip(axes[0], sweeps_seen):
        rows = [r for r in records if r["sweep"] == sweep]
        xs = [r["x"] for r in rows]
        ax.plot(xs, [r["torch"] for r in rows], "k-o", label="PyTorch (oneDNN)", linewidth=2)
        for a in ALGORITHMS:
            pts = [(r["x"], r[a]) for r in rows if a in r]
            if pts:
                ax.plot(*zip(*pts), "-s" if a == "polyhankel" else "--.", label=a)
        ax.set_yscale("log")
        ax.set_xlabel(sweep_label(sweep))
        ax.set_ylabel("ms per call (batch 8)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.suptitle(f"conv2d, float32, {records[0]['threads']} threads: fastconv's algorithms and PyTorch")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.3, help="seconds of timed runs per case, at least")
    parser.add_argument("--quick", action="store_true", help="two points per sweep")
    parser.add_argument("--json", default="-", help="write the JSON lines here (default: stdout; also on stderr as they come)")
    parser.add_argument("--from-json", help="read the records from this file instead of measuring")
    parser.add_argument("--table", action="store_true", help="print the Markdown tables")
    parser.add_argument("--plot", help="write the PNG plot here")
    args = parser.parse_args()
    if args.from_json:
        with open(args.from_json) as f:
            records = [json.loads(line) for line in f if line.strip()]
    else:
        records = measure(args)
        text = "".join(json.dumps(r) + "\n" for r in records)
        if args.json == "-":
            sys.stdout.write(text)
        else:
            with open(args.json, "w") as f:
                f.write(text)
    if args.table:
        print(table(records))
    if args.plot:
        plot(records, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
