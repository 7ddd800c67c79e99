#!/usr/bin/env python3
"""Writes bench/cost-curve.sh's report (markdown) and plot (PNG) from its results file ("key value" lines)."""
import argparse
import statistics
import sys


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("--rounds", type=int, required=True)
    parser.add_argument("--report", required=True)
    parser.add_argument("--plot", required=True)
    args = parser.parse_args()
    values = {}
    settings = []  # every --pg-setting, in order (the key repeats)
    with open(args.results) as results:
        for line in results:
            key, _, value = line.strip().partition(" ")
            values[key] = value
            if key == "setting":
                settings.append(value)

    sizes = []  # one entry per size: its rounds' figures
    round_number = 1
    while f"round{round_number}_size" in values:
        size = values[f"round{round_number}_size"]
        if not sizes or sizes[-1]["size"] != size:
            sizes.append({"size": size, "rounds": []})
        sizes[-1]["rounds"].append(round_number)
        round_number += 1
    if not sizes:
        print("error: no rounds in the results", file=sys.stderr)
        return 1

    def figure(kind, key, rounds):
        return statistics.mean(float(values[f"{kind}{r}_{key}"]) for r in rounds)

    rows = []
    for entry in sizes:
        rounds = entry["rounds"]
        stored = statistics.mean(int(values[f"round{r}_rows"]) for r in rounds)
        table = statistics.mean(int(values[f"round{r}_table_bytes"]) / int(values[f"round{r}_rows"]) for r in rounds)
        index = statistics.mean(int(values[f"round{r}_index_bytes"]) / int(values[f"round{r}_rows"]) for r in rounds)
        month = statistics.mean(int(values[f"round{r}_month_rows"]) for r in rounds)
        row = {"size": entry["size"], "rows": stored, "month": month, "table": table, "index": index, "rounds": rounds}
        for kind in ("new", "replace"):
            row[kind] = {
                "rate": figure(kind, "steady_rate", rounds),
                "rates": [float(values[f"{kind}{r}_steady_rate"]) for r in rounds],
                "worker": figure(kind, "cpu_us", rounds),
                "store": figure(kind, "pg_cpu_us", rounds),
                "wal": figure(kind, "wal_bytes", rounds),
                "fpi": figure(kind, "fpi", rounds) if f"{kind}{rounds[0]}_fpi" in values else None,
                "reads": figure(kind, "blocks_read", rounds) if f"{kind}{rounds[0]}_blocks_read" in values else None,
                "events": figure(kind, "events", rounds),
            }
        rows.append(row)

    first, last = rows[0], rows[-1]
    ratio = {kind: last[kind]["rate"] / first[kind]["rate"] for kind in ("new", "replace")}
    lines = [
        "# Cost curve: upsert rate against stored rows (PostgreSQL, partitioned by month)",
        "",
        f"`{values.get('command', '?')}`, {values.get('date', '?')}, build {values.get('build', '?')}.",
        "",
        f"`bench/cost-curve.sh` (this report and [the plot]({args.plot.rsplit('/', 1)[-1]})): one store filled to each",
        "size, then the real worker (release, one process) on a first load of a new day and on higher versions of",
        f"random older days; {args.rounds} round(s) per size, each round its own new day and its own random days.",
        "Rates are steady rates (first partition assignment to caught up), events per second; CPU is user+sys per",
        "event (worker process; PostgreSQL cluster); WAL is bytes per event, FPI the full-page images per event",
        "(`pg_stat_wal`), reads the blocks PostgreSQL read from outside its buffer cache per event. The new days are",
        "the last days of a month, so the partition they land in holds that month's earlier days: at the largest",
        "size nearly a whole month, the worst case.",
        "",
        f"Server: PostgreSQL 15, shared_buffers {values.get('shared_buffers', '?')}, wal_compression"
        f" {values.get('wal_compression', '?')}, and bench/lib.sh's max_wal_size 8GB, checkpoint_timeout 30min,"
        " autovacuum off during the measurement"
        + (f" (`--pg-setting` {', '.join(settings)})." if settings else " (no `--pg-setting`)."),
        "",
        "| stored rows | rows in the new day's month | table B/row | index B/row |",
        "|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(f"| {row['rows']:,.0f} | {row['month']:,.0f} | {row['table']:.0f} | {row['index']:.0f} |")

    def cell(value, pattern):
        return "–" if value is None else format(value, pattern)

    for kind, title in (("new", "First load of a new day"), ("replace", "Higher versions of random older days")):
        lines += [
            "",
            f"{title}:",
            "",
            "| stored rows | ev/s (rounds) | worker µs/ev | PostgreSQL µs/ev | WAL B/ev | FPI/ev | reads/ev |",
            "|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in rows:
            k = row[kind]
            lines.append(
                f"| {row['rows']:,.0f} | {k['rate']:,.0f} ({', '.join(f'{r:,.0f}' for r in k['rates'])})"
                f" | {k['worker']:.1f} | {k['store']:.1f} | {k['wal']:,.0f} | {cell(k['fpi'], '.2f')}"
                f" | {cell(k['reads'], '.2f')} |"
            )
    goal = "met" if min(ratio.values()) >= 0.8 else "NOT met"
    lines += [
        "",
        f"**Rate at {last['rows']:,.0f} rows / rate at {first['rows']:,.0f} rows:** new day "
        f"{ratio['new']:.2f}, replace {ratio['replace']:.2f} (goal ≥ 0.8 for both: {goal}).",
        "",
        f"Events per workload: {first['new']['events']:,.0f} (new day), {first['replace']['events']:,.0f} (replace).",
        f"Disk: the cluster's data directory held {int(values['disk_bytes']) / 1e9:.1f} GB at the end; "
        f"{int(values['disk_free_bytes']) / 1e9:.1f} GB were still free.",
    ]
    fills = [(k, v) for k, v in values.items() if k.startswith("fill_")]
    if fills:
        lines.append("Fill times: " + ", ".join(f"to {int(k.split('_')[1]):,} rows {v} s" for k, v in fills) + ".")
    with open(args.report, "w") as report:
        report.write("\n".join(lines) + "\n")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    figure_, axes = plt.subplots(figsize=(7, 4.2), dpi=110)
    for kind, label in (("new", "first load of a new day"), ("replace", "higher versions of random older days")):
        (line,) = axes.plot([r["rows"] / 1e6 for r in rows], [r[kind]["rate"] for r in rows], marker="o", label=label)
        for r in rows:
            axes.scatter([r["rows"] / 1e6] * len(r[kind]["rates"]), r[kind]["rates"], s=12, alpha=0.5,
                         color=line.get_color())
    axes.set_xscale("log")
    axes.set_xlabel("stored rows (millions, log scale)")
    axes.set_ylabel("worker steady rate (events/s)")
    axes.set_ylim(0, 1.2 * max(rate for r in rows for kind in ("new", "replace") for rate in r[kind]["rates"]))
    axes.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%.1f"))
    axes.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    axes.set_xticks([r["rows"] / 1e6 for r in rows])
    axes.set_title("Upsert rate against store size (PostgreSQL 15, monthly partitions)\n"
                   + "the mean of the rounds; the dots are the rounds", fontsize=10)
    axes.grid(True, alpha=0.3)
    axes.legend(loc="lower left")
    figure_.tight_layout()
    figure_.savefig(args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
