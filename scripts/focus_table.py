"""The table of scripts/bench-focus: one row per web, from each replay's
metrics.csv (strategy, round, pages_fetched, coverage, ...)."""
import csv
import sys

PAPERS = ["tld-anchor", "hard-focused", "soft-focused", "server-aggressive",
          "server-conservative", "dir-conservative"]


def curves(path):
    by = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            by.setdefault(row["strategy"], []).append(
                (int(row["round"]), float(row["pages_fetched"]), float(row["coverage"])))
    return {s: [(p, c) for _, p, c in sorted(rows)] for s, rows in by.items()}


def pages_to(curve, goal):
    """Pages fetched when coverage first reached goal, interpolated."""
    before = (0.0, 0.0)
    for pages, cov in curve:
        if cov >= goal:
            share = (goal - before[1]) / (cov - before[1]) if cov > before[1] else 1.0
            return before[0] + share * (pages - before[0])
        before = (pages, cov)
    return None


def show(x):
    return "never" if x is None else f"{x:.0f}"


def main(results, capped=False):
    # capped: the replays other than bfs's stopped at a page budget, so
    # adaptive's final coverage is not judged (scripts/bench-focus-live)
    # coverage is of the target pages the replay's oracle reaches from the
    # seeds; the aims compare with bfs's final coverage, whatever its scale
    header = ["web", "bfs cov", "adaptive cov", "ad p90", "ad p99", "best paper",
              "bp p90", "bp p99", "perfect p90", "aims"]
    rows, failed = [], []
    for line in open(results):
        web, path = line.rstrip("\n").split("\t")
        c = curves(path)
        ref = c["bfs"][-1][1]
        ad = c["adaptive"]
        ad90, ad99 = pages_to(ad, 0.9 * ref), pages_to(ad, 0.99 * ref)
        papers = [(pages_to(c[p], 0.9 * ref), pages_to(c[p], 0.99 * ref), p) for p in PAPERS if p in c]
        reached = [x for x in papers if x[0] is not None]
        bp90, bp99, bp = min(reached, key=lambda x: x[0]) if reached else (None, None, "-")
        perfect90 = pages_to(c["perfect"], 0.9 * ref) if "perfect" in c else None
        aims = []
        if not capped and ad[-1][1] < 0.99 * ref:
            aims.append("coverage")
        if ad90 is None or (bp90 is not None and ad90 > bp90):
            aims.append("p90>paper")
        if ad90 is None or (perfect90 is not None and ad90 > 1.2 * perfect90):
            aims.append("p90>1.2x perfect")
        if "coverage" in aims or "p90>paper" in aims:
            failed.append(web)
        rows.append([web, f"{ref:.3f}", f"{ad[-1][1]:.3f}", show(ad90), show(ad99), bp,
                     show(bp90), show(bp99), show(perfect90), ", ".join(aims) or "ok"])
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    for r in [header] + rows:
        print("  ".join(str(x).ljust(w) for x, w in zip(r, widths)))
    judged = "p90 <= best paper" if capped else "two aims (coverage, p90 <= best paper)"
    print(f"\n{len(rows)} webs; adaptive's {judged} fail on "
          f"{len(failed)}: {', '.join(failed) or 'none'}")


if __name__ == "__main__":
    main(sys.argv[1], capped="--capped" in sys.argv[2:])
