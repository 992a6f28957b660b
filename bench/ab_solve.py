"""A/B of two npuzzle builds, alternated: the 17 boards at 80 with 7-8 and
trio, Korf 24 #25 with septet (one and two threads), a DeepCubeA 7x7 board.

    python3 bench/ab_solve.py A/npuzzle B/npuzzle TABLES_DIR DATA_DIR [ROUNDS]

TABLES_DIR holds 7-8, trio and the blank-first septet (`npuzzle pdb build
--partition 7-8 --out DIR`, `--partition trio`, `--size 5 --goal
blank-first --partition septet`); DATA_DIR the 7x7 tables."""
import json, os, subprocess, statistics, sys, time
A, B, TABLES, DATA = sys.argv[1:5]
ROUNDS = int(sys.argv[5]) if len(sys.argv) > 5 else 5
BENCH = os.path.dirname(os.path.abspath(__file__))
hard80 = "\n".join(" ".join(l.split()[2:]) for l in open(os.path.join(BENCH, "hard80.txt")) if l.strip() and not l.startswith("#")) + "\n"
k25 = [l for l in open(os.path.join(BENCH, "korf24_50.txt")) if l.split()[:1] == ["25"]][0].split()[2:]
dc7 = open(os.path.join(BENCH, "deepcubea_7x7.txt")).readline().split()[3:]
cases = []
for part in ["7-8", "trio"]:
    for jobs in [1, 2]:
        cases.append((f"17x80 {part} jobs={jobs}", ["solve", "--json", "--no-moves", "--partition", part, "--pdb-dir", TABLES, "--jobs", str(jobs)], hard80))
for jobs in [1, 2]:
    cases.append((f"korf24 #25 septet jobs={jobs}", ["solve", "--json", "--no-moves", "--goal", "blank-first", "--partition", "septet", "--pdb-dir", TABLES, "--jobs", str(jobs), " ".join(k25)], None))
cases.append(("7x7 DeepCubeA #0 jobs=2", ["solve", "--json", "--no-moves", "--notation", "tile", "--pdb-dir", DATA, "--jobs", "2", " ".join(dc7)], None))
res = {}
for r in range(ROUNDS):
    for name, args, stdin in cases:
        order = [("A", A), ("B", B)] if r % 2 == 0 else [("B", B), ("A", A)]
        for which, binp in order:
            t = time.monotonic()
            out = subprocess.run([binp] + args, input=stdin, capture_output=True, text=True, check=True).stdout
            wall = time.monotonic() - t
            recs = [r for r in (json.loads(l) for l in out.splitlines() if l.startswith("{")) if r.get("type") == "solution"]
            key = (name, which)
            res.setdefault(key, []).append((wall, sum(x.get("expanded", 0) for x in recs), sum(x["length"] for x in recs)))
            print(name, which, f"{wall:.3f}", recs and sum(x.get("expanded", 0) for x in recs), sum(x["length"] for x in recs), flush=True)
print()
print("| case | A median s | B median s | B/A | A expanded | B expanded | lengths equal |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
for name, _, _ in cases:
    a = res[(name, "A")]; b = res[(name, "B")]
    ma = statistics.median(x[0] for x in a); mb = statistics.median(x[0] for x in b)
    print(f"| {name} | {ma:.3f} | {mb:.3f} | {mb/ma:.3f} | {a[0][1]} | {b[0][1]} | {all(x[2]==a[0][2] for x in a+b)} |")
