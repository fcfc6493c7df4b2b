#!/usr/bin/env python3
"""Plot `fastconv bench gajic --json` like seed 001's Fig. 3; optionally print its Markdown table.

Reads the JSON lines (one object per backend and size) from a file or stdin and writes a PNG:
time of one dyadic convolution against n = log2 N, log scale, for the textbook loop, the `cpu`
backend, and the OpenCL `gajic2011` and `fast` variants (wall time of the call, solid; their
kernel time from the device's profiling events, dashed). Seed 001's published Table 2 figures
(2011: AMD Phenom II N830 CPU, ATI Mobility Radeon 5650 GPU) are drawn as grey markers for
comparison unless --no-seed is given (its zeros cannot be drawn on a log scale).

    build/tools/fastconv/fastconv bench gajic --json > /tmp/gajic.json
    python3 bench/gajic_plot.py /tmp/gajic.json                   # -> docs/bench-gajic.png
    python3 bench/gajic_plot.py /tmp/gajic.json --table           # and the Markdown table on stdout
    fastconv bench gajic --log2n 10,16,20 --json | python3 bench/gajic_plot.py - --plot /tmp/g.png

--table prints the same table as `fastconv bench gajic` without --json, from the JSON. The plot
needs matplotlib; when it is missing the script installs it with pip (as bench/compare_ffht.sh
does), or says how to.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

DEFAULT_PLOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "docs", "bench-gajic.png")

# Seed 001, Table 2: n -> (CPU, GPU computation, GPU memory) in ms, average of 10 runs (2011).
SEED_TABLE2 = {4: (0, 0, 0), 8: (0, 0, 1), 10: (0, 1, 1), 16: (15, 3, 2), 18: (53, 6, 3), 20: (108, 24, 9),
               23: (1201, 220, 45), 24: (2512, 469, 86), 25: (5002, 998, 147)}

# (backend, variant or None for any) -> column name
SERIES = {("reference", None): "textbook", ("cpu", None): "cpu", ("opencl", "gajic2011"): "gajic2011",
          ("opencl", "fast"): "fast"}


def load(stream, name):
    """{(series, n): {"total": ms, "compute": ms, "transfer": ms}} and {series: description, "repeats": {runs}}."""
    values, descriptions = {}, {}
    for number, line in enumerate(stream, 1):
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
            backend, variant, n = record["backend"], record["variant"], int(record["log2n"])
            total = float(record["median_ms"])
        except (ValueError, KeyError, TypeError) as e:
            sys.exit(f"gajic_plot.py: error: {name}:{number}: not a `fastconv bench gajic --json` line ({e})")
        series = SERIES.get((backend, variant)) or SERIES.get((backend, None))
        if series is None:
            continue
        entry = values.setdefault((series, n), {"total": [], "compute": [], "transfer": []})
        entry["total"].append(total)
        for key in ("compute", "transfer"):
            if record.get(f"{key}_ms") is not None:
                entry[key].append(float(record[f"{key}_ms"]))
        descriptions[series] = record.get("description", backend)
        if "repeats" in record:
            descriptions.setdefault("repeats", set()).add(int(record["repeats"]))
    if not values:
        sys.exit(f"gajic_plot.py: error: {name}: no `fastconv bench gajic --json` records")
    medians = {key: {k: statistics.median(v) if v else None for k, v in entry.items()}
               for key, entry in values.items()}
    return medians, descriptions


def ms_text(ms):
    """As `fastconv bench gajic` prints times: about three significant digits, no exponent."""
    if ms is None or not math.isfinite(ms):
        return "-"
    if ms >= 100 or ms == 0:
        return f"{ms:.0f}"
    decimals = min(max(2 - math.floor(math.log10(ms)), 1), 6)
    return f"{ms:.{decimals}f}"


def table(t, descriptions):
    sizes = sorted({n for _, n in t})
    get = lambda series, n, key: (t.get((series, n)) or {}).get(key)
    runs = "/".join(str(r) for r in sorted(descriptions.get("repeats", ()))) or "?"
    lines = [f"OpenCL device: {descriptions.get('fast', descriptions.get('gajic2011', '?'))}; "
             f"cpu backend: {descriptions.get('cpu', '?')}. Dyadic convolution of two random 0/1 float32 vectors "
             f"of 2^n points, median of {runs} runs, ms.", "",
             "| n | textbook (ms) | cpu (ms) | gajic2011 compute | gajic2011 transfer | fast compute | fast transfer "
             "| fast total | gajic2011 total / fast total |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n in sizes:
        g, f = get("gajic2011", n, "total"), get("fast", n, "total")
        ratio = f"{g / f:.2f}×" if g is not None and f else "-"
        cells = [str(n), ms_text(get("textbook", n, "total")), ms_text(get("cpu", n, "total")),
                 ms_text(get("gajic2011", n, "compute")), ms_text(get("gajic2011", n, "transfer")),
                 ms_text(get("fast", n, "compute")), ms_text(get("fast", n, "transfer")), ms_text(f), ratio]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def import_matplotlib():
    try:
        import matplotlib
    except ImportError:
        print("gajic_plot.py: installing matplotlib for the plot", file=sys.stderr)
        for extra in ([], ["--user"]):
            if subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *extra, "matplotlib"]).returncode == 0:
                break
        try:
            import matplotlib
        except ImportError:
            sys.exit("gajic_plot.py: error: matplotlib is not installed and could not be installed: "
                     "'python3 -m pip install matplotlib' or 'apt-get install python3-matplotlib'")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot(t, descriptions, path, seed):
    plt = import_matplotlib()
    fig, ax = plt.subplots(figsize=(9, 5.5))
    colour = {"textbook": "tab:red", "cpu": "tab:green", "gajic2011": "tab:blue", "fast": "tab:orange"}
    label = {"textbook": "textbook loop (seed's referent CPU algorithm), 1 thread", "cpu": "fastconv cpu",
             "gajic2011": "OpenCL gajic2011 (seed's Algorithm 1), total", "fast": "OpenCL fast, total"}
    for series in ("textbook", "cpu", "gajic2011", "fast"):
        points = sorted((n, v["total"]) for (s, n), v in t.items() if s == series and v["total"])
        if points:
            ax.plot([n for n, _ in points], [ms for _, ms in points], "-o", color=colour[series], markersize=4,
                    label=label[series])
        compute = sorted((n, v["compute"]) for (s, n), v in t.items() if s == series and v["compute"])
        if compute:
            ax.plot([n for n, _ in compute], [ms for _, ms in compute], "--", color=colour[series], marker=".",
                    label=f"OpenCL {series}, computation (kernels)")
    if seed:
        for index, (name, marker) in enumerate((("CPU", "s"), ("GPU computation", "^"))):
            xs = [n for n in sorted(SEED_TABLE2) if SEED_TABLE2[n][index] > 0]
            ax.plot(xs, [SEED_TABLE2[n][index] for n in xs], marker, color="grey", fillstyle="none", linestyle="none",
                    label=f"seed 001 Table 2: {name} (2011, Phenom II / Radeon 5650)")
    ax.set_yscale("log")
    ax.set_xlabel("n = log2 N")
    ax.set_ylabel("time per dyadic convolution [ms] (median)")
    device = descriptions.get("fast", descriptions.get("gajic2011", ""))
    ax.set_title("Seed 001's Table 2 / Fig. 3 on this machine: float32 dyadic convolution\n" + device, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".bench-gajic.", suffix=".png", dir=directory)
    os.close(fd)
    try:
        fig.savefig(temporary, dpi=110, format="png")
        os.replace(temporary, path)  # never a partial file
    except BaseException:
        os.unlink(temporary)
        raise
    finally:
        plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description="Plot `fastconv bench gajic --json` like seed 001's Fig. 3.")
    parser.add_argument("input", nargs="?", default="-", help="the JSON lines file ('-' or nothing: stdin)")
    parser.add_argument("--plot", default=DEFAULT_PLOT, help="PNG to write (default: docs/bench-gajic.png)")
    parser.add_argument("--no-plot", action="store_true", help="write no PNG (with --table: the table only)")
    parser.add_argument("--table", action="store_true", help="also print the Markdown table to stdout")
    parser.add_argument("--no-seed", action="store_true", help="leave out seed 001's published figures")
    args = parser.parse_args()
    if args.input == "-":
        t, descriptions = load(sys.stdin, "<stdin>")
    else:
        try:
            with open(args.input) as stream:
                t, descriptions = load(stream, args.input)
        except OSError as e:
            sys.exit(f"gajic_plot.py: error: {args.input}: {e.strerror}")
    if args.table:
        print(table(t, descriptions))
    if not args.no_plot:
        plot(t, descriptions, args.plot, not args.no_seed)
        print(f"gajic_plot.py: wrote {os.path.normpath(args.plot)}", file=sys.stderr)


if __name__ == "__main__":
    main()
