#!/usr/bin/env python3
"""Turn bench/ffht_compare's Google Benchmark JSON into Markdown tables and a PNG plot.

Writes, between the markers <!-- ffht-compare:begin --> and <!-- ffht-compare:end --> of a
Markdown file (appended at its end when the markers are absent; the rest of the file is kept):
a line about the machine, date and commands; one WHT table per element type (FFHT, fastconv,
their ratio, the textbook loop); the dyadic-convolution table; and a link to the plot of time
per element against log2 N. Run by bench/compare_ffht.sh; usable on its own:

    python3 bench/report.py build/_deps/ffht/ffht_compare.json --doc docs/benchmarks.md \
        --plot docs/bench-wht.png --command "..." --ffht "FFHT-unofficial 0.3 ..."
"""

import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

BEGIN = "<!-- ffht-compare:begin -->"
END = "<!-- ffht-compare:end -->"
NAME = re.compile(r"^(?P<op>\w+)/(?P<impl>\w+)/(?P<dtype>\w+)/threads:(?P<threads>\d+)/log2n:(?P<log2n>\d+)")
TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}

# Issue 3's FFHT and textbook figures, measured on another machine (2 vCPU AMD EPYC Zen 4,
# AVX-512, one thread, median ms). Used only when FFHT could not be built here.
ISSUE3_FFHT = {
    "float": {10: 0.000318, 16: 0.0272, 20: 0.507, 24: 12.4, 26: 65.7, 28: 591},
    "double": {10: 0.000513, 16: 0.0472, 20: 0.958, 24: 25.9, 26: 140, 28: 1372},
}


def load_medians(path):
    """{(op, impl, dtype, threads, log2n): median real time in ms}, {same key: coefficient of
    variation of the repetitions' real times} (where there were two or more) and the run's
    context."""
    with open(path) as f:
        data = json.load(f)
    runs, medians, cvs = {}, {}, {}
    for b in data["benchmarks"]:
        m = NAME.match(b.get("run_name", b["name"]))
        if not m or b.get("error_occurred"):
            continue
        key = (m["op"], m["impl"], m["dtype"], int(m["threads"]), int(m["log2n"]))
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[key] = b["real_time"] * TO_MS[b["time_unit"]]
            elif b.get("aggregate_name") == "cv":  # a fraction, whatever the time unit
                cvs[key] = b["real_time"]
        else:
            runs.setdefault(key, []).append(b["real_time"] * TO_MS[b["time_unit"]])
    for key, times in runs.items():
        medians.setdefault(key, statistics.median(times))
        if len(times) > 1 and key not in cvs and statistics.mean(times) > 0:
            cvs[key] = statistics.stdev(times) / statistics.mean(times)
    return medians, cvs, data.get("context", {})


def spread_line(cvs):
    """How far the repetitions of each case spread: the run's noise, beside its medians."""
    if not cvs:
        return None
    values = sorted(cvs.values())
    worst = max(cvs, key=cvs.get)
    noisy = sum(1 for v in values if v > 0.05)
    name = f"{worst[0]}/{worst[1]}/{worst[2]}, {worst[3]} thread{'s' if worst[3] > 1 else ''}, 2^{worst[4]}"
    return (f"Spread of the repetitions (standard deviation over mean, per case): median "
            f"{100 * statistics.median(values):.1f} % over {len(values)} cases, more than 5 % in {noisy}, "
            f"at most {100 * values[-1]:.1f} % ({name}).")


def fmt_ms(ms):
    if ms is None:
        return "—"
    return f"{ms:.4g}" if ms < 1000 else f"{ms:.0f}"


def fmt_ratio(a, b):
    return "—" if a is None or b is None or b == 0 else f"{a / b:.2f}×"


def machine_line():
    model, flags = "unknown CPU", set()
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "Model name":
                model = value.strip()
            elif key.strip() == "Flags":
                flags = set(value.split())
    except (OSError, subprocess.CalledProcessError):
        pass
    cpus = os.cpu_count()
    isa = ", ".join(f"{f}: {'yes' if f in flags else 'no'}" for f in ("avx2", "fma", "avx512f"))
    return f"{model}, {cpus} CPUs ({isa})"


def wht_table(t, dtype, ffht_dtype, textbook, two_threads, ffht_measured, sizes):
    """One Markdown table: fastconv `dtype` against FFHT `ffht_dtype` (the same-width float
    for an integer type: FFHT has no integer transform) and, when measured, the textbook loop."""
    ffht_head = f"FFHT {ffht_dtype} [ms]" if ffht_measured else f"FFHT {ffht_dtype} [ms] (issue 3, another machine)"
    head = ["log2 N", ffht_head, f"fastconv {dtype} [ms]", "speed-up FFHT/fastconv"]
    if dtype != ffht_dtype:
        head += [f"fastconv {ffht_dtype} [ms]", f"{dtype}/{ffht_dtype} time"]
    if two_threads:
        head += ["fastconv 2 threads [ms]", "2-thread speed-up"]
    if textbook:
        head += ["textbook [ms]", "textbook/fastconv"]
    rows = []
    for n in sizes:
        ours = t.get(("wht", "fastconv", dtype, 1, n))
        if ours is None:
            continue
        ffht = t.get(("wht", "ffht", ffht_dtype, 1, n)) if ffht_measured else ISSUE3_FFHT[ffht_dtype].get(n)
        row = [str(n), fmt_ms(ffht), fmt_ms(ours), fmt_ratio(ffht, ours)]
        if dtype != ffht_dtype:
            same_width = t.get(("wht", "fastconv", ffht_dtype, 1, n))
            row += [fmt_ms(same_width), fmt_ratio(ours, same_width)]
        if two_threads:
            two = t.get(("wht", "fastconv", dtype, 2, n))
            row += [fmt_ms(two), fmt_ratio(ours, two)]
        if textbook:
            book = t.get(("wht", "textbook", dtype, 1, n))
            row += [fmt_ms(book), fmt_ratio(book, ours)]
        rows.append(row)
    if not rows:
        return ""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def passes_table(t, sizes):
    """Large transforms against the memory yardstick: how many in-place passes over the array
    each one costs, on 1 and 2 threads (issue 3: at ≥ 2^24, 2 threads within 1.25× of
    passes × the 2-thread pass time)."""
    head = ["log2 N", "pass, 1 thread [ms]", "fastconv float, 1 thread [ms]", "= passes",
            "pass, 2 threads [ms]", "fastconv float, 2 threads [ms]", "= passes"]
    rows = []
    for n in sizes:
        p1, p2 = t.get(("pass", "memory", "float", 1, n)), t.get(("pass", "memory", "float", 2, n))
        w1, w2 = t.get(("wht", "fastconv", "float", 1, n)), t.get(("wht", "fastconv", "float", 2, n))
        if p1 is None or w1 is None:
            continue
        rows.append([str(n), fmt_ms(p1), fmt_ms(w1), f"{w1 / p1:.1f}", fmt_ms(p2), fmt_ms(w2),
                     f"{w2 / p2:.1f}" if p2 and w2 else "–"])
    if not rows:
        return ""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def dyadic_section(t):
    sizes = sorted({k[4] for k in t if k[0] in ("convolve", "system") and k[1] != "textbook"})
    if not sizes:
        return ""
    head = ["n", "FFHT: 3 transforms + multiply [ms]", "fastconv::convolve [ms]", "speed-up",
            "FFHT: 2 transforms + multiply, W·h cached [ms]", "DyadicSystem::apply [ms]", "speed-up"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n in sizes:
        fc, oc = t.get(("convolve", "ffht", "float", 1, n)), t.get(("convolve", "fastconv", "float", 1, n))
        fs, os_ = t.get(("system", "ffht", "float", 1, n)), t.get(("system", "fastconv", "float", 1, n))
        lines.append("| " + " | ".join([str(n), fmt_ms(fc), fmt_ms(oc), fmt_ratio(fc, oc),
                                        fmt_ms(fs), fmt_ms(os_), fmt_ratio(fs, os_)]) + " |")
    text = "\n".join(lines)
    for (op, impl, _, _, n), ms in sorted(t.items()):
        if (op, impl) == ("convolve", "textbook"):
            conv, system = t.get(("convolve", "fastconv", "float", 1, n)), t.get(("system", "fastconv", "float", 1, n))
            text += (f"\n\nTextbook reference (seed 004's Algorithm 0 on one thread, three O(N log N) transforms; "
                     f"one call) at n = {n}: **{fmt_ms(ms)} ms**, {fmt_ratio(ms, conv)} the time of "
                     f"`fastconv::convolve` and {fmt_ratio(ms, system)} that of `DyadicSystem::apply`.")
            if n == 25:
                text += " (Seed 001's own CPU implementation needed 5002 ms at n = 25, on 2011 hardware.)"
    if not any(k[:2] == ("convolve", "ffht") for k in t):
        text += ("\n\nFFHT was not built for this run. On issue 3's machine (another one: AMD EPYC Zen 4, "
                 "AVX-512) three FFHT transforms plus a fused multiply take 95–120 ms at n = 25.")
    return text


def plot(t, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no plot."
    # Colour = element type, line style = implementation: FFHT and fastconv of one type sit together.
    order = {"ffht": 0, "fastconv": 1, "textbook": 2}
    series = sorted({(k[1], k[2], k[3]) for k in t if k[0] == "wht"}, key=lambda s: (s[1], order.get(s[0], 3), s[2]))
    colour = {"float": "tab:blue", "double": "tab:orange", "int32": "tab:green", "int64": "tab:red"}
    style = {"ffht": "--", "fastconv": "-", "textbook": ":"}
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for impl, dtype, threads in series:
        points = sorted((k[4], ms) for k, ms in t.items() if k[:4] == ("wht", impl, dtype, threads))
        xs = [n for n, _ in points]
        ys = [ms * 1e6 / 2 ** n for n, ms in points]
        label = f"{impl} {dtype}" + (f", {threads} threads" if threads > 1 else "")
        ax.plot(xs, ys, "-." if threads > 1 else style.get(impl, "-"), color=colour.get(dtype),
                marker="s" if impl == "ffht" else "o", markersize=3, label=label)
    if not any(impl == "ffht" for impl, _, _ in series):
        for dtype, figures in ISSUE3_FFHT.items():
            xs = [n for n in sorted(figures) if n in {k[4] for k in t if k[0] == "wht"}]
            if xs:
                ax.plot(xs, [figures[n] * 1e6 / 2 ** n for n in xs], "x", color=colour[dtype], markersize=7,
                        label=f"FFHT {dtype} (issue 3, another machine)")
    ax.set_yscale("log")
    ax.set_xlabel("log2 N")
    ax.set_ylabel("time per element [ns]")
    ax.set_title("Walsh–Hadamard transform, in place, unnormalised (median)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def section(t, cvs, context, args):
    ffht_measured = any(k[1] == "ffht" for k in t)
    sizes = sorted({k[4] for k in t if k[0] == "wht"})
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = ["## fastconv vs FFHT and the textbook loop (bench/compare_ffht.sh)", ""]
    started = context.get("date", "")
    ran = f" from a run that started {started.replace('T', ' ')}" if started else ""
    out.append(f"Generated by `bench/report.py` on {date}{ran}. Machine: {machine_line()}; "
               f"fastconv {context.get('fastconv_cpu', '?')} (one thread unless a column says 2), "
               f"commit {args.commit or '?'}; {args.compiler or 'compiler ?'}.")
    out.append("")
    out.append(f"FFHT: {args.ffht}")
    out.append("")
    out.append(f"Command: `{args.command}`" if args.command else "Command: not recorded")
    if args.harness_command:
        out += ["", f"Harness run: `{args.harness_command}`"]
    out.append("")
    out.append("Median real time per call in ms; every case transforms the same 2 MiB-aligned buffer, "
               "restored between calls outside the timed region. Speed-up = FFHT time / fastconv time "
               "(> 1: fastconv is faster). FFHT has no integer transform: the integer tables compare with "
               "FFHT on the float type of the same width.")
    if "random_interleaving=true" in (args.harness_command or ""):
        out[-1] += (" The repetitions of all cases ran in one random order (Google Benchmark's random "
                    "interleaving): a burst of noise from the machine's neighbours falls on a few repetitions "
                    "of several cases, and the medians pass over it, instead of on all repetitions of one.")
    spread = spread_line(cvs)
    if spread:
        out[-1] += " " + spread
    if not ffht_measured:
        out += ["", "**FFHT was not measured in this run** (see the FFHT line above): its column repeats issue 3's "
                    "figures, which were measured on **another machine** (2 vCPU AMD EPYC Zen 4 with AVX-512); "
                    "ratios against them are indicative only."]
    tables = [("float", "float", True, True), ("double", "double", False, False),
              ("int32", "float", False, False), ("int64", "double", True, False)]
    for dtype, ffht_dtype, textbook, two in tables:
        table = wht_table(t, dtype, ffht_dtype, textbook, two, ffht_measured, sizes)
        if table:
            out += ["", f"### WHT, {dtype}", "", table]
    passes = passes_table(t, sizes)
    if passes:
        out += ["", "### Large transforms in memory passes", "",
                "A pass is one in-place read+write sweep over the array (`pass/memory`, OpenMP); "
                "\"= passes\" is the transform's time in such passes.", "", passes]
    dyadic = dyadic_section(t)
    if dyadic:
        out += ["", "### Dyadic convolution, float, one thread, inputs preserved", "", dyadic]
    if args.plot:
        problem = plot(t, args.plot)
        rel = os.path.relpath(os.path.abspath(args.plot), os.path.dirname(os.path.abspath(args.doc)))
        out += ["", f"![time per element against log2 N]({rel})" if problem is None else problem]
    return "\n".join(out) + "\n"


def write_between_markers(path, body):
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
    block = f"{BEGIN}\n{body}{END}\n"
    if BEGIN in text and END in text:
        start, end = text.index(BEGIN), text.index(END) + len(END)
        if text[end:end + 1] == "\n":
            end += 1
        text = text[:start] + block + text[end:]
    else:
        text = text.rstrip("\n") + "\n\n" + block
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".benchmarks-", suffix=".md")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)  # never a half-written document


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("json", help="Google Benchmark JSON written by ffht_compare")
    p.add_argument("--doc", default="docs/benchmarks.md", help="Markdown file to update")
    p.add_argument("--plot", default="docs/bench-wht.png", help="PNG to write ('' for none)")
    p.add_argument("--command", default="", help="the command that produced the figures")
    p.add_argument("--harness-command", default="", help="the benchmark program's command line")
    p.add_argument("--ffht", default="not recorded", help="where FFHT came from and how it was built")
    p.add_argument("--commit", default="", help="fastconv's git commit")
    p.add_argument("--compiler", default="", help="compiler version")
    p.add_argument("--print", action="store_true", help="also print the section to stdout")
    args = p.parse_args()
    try:
        medians, cvs, context = load_medians(args.json)
    except (OSError, ValueError) as e:  # json.JSONDecodeError is a ValueError
        sys.exit(f"report.py: {args.json}: cannot read Google Benchmark JSON: {e}")
    if not medians:
        sys.exit(f"report.py: {args.json} has no fastconv/FFHT benchmark results")
    for path in (args.doc, args.plot):  # before the plot is drawn, so that nothing is half-written
        if path and not os.path.isdir(os.path.dirname(path) or "."):
            sys.exit(f"report.py: {path}: its directory does not exist")
    try:
        body = section(medians, cvs, context, args)
        write_between_markers(args.doc, body)
    except OSError as e:
        sys.exit(f"report.py: cannot write the report: {e}")
    if args.print:
        print(body)


if __name__ == "__main__":
    main()
