#!/usr/bin/python3
"""Property test (issue 10): sweep files mean exactly what they say.

Generates a few hundred valid sweep files from a fixed seed -- random models, random subsets of
parameters, lists of varying length (some lines far past 200 characters, some wrapped over
indented continuation lines), comments (full-line, inline, longer than 200 characters and
holding `key = value` text), blank lines, whitespace and CRLF variants, repeated [run] headers,
zip groups -- and checks that the points `storq run FILE --dry-run` lists are exactly the ones
the generator meant: every parameter's value text, point by point, in product order, and the run
options (replications, seed, output).

usage: sweep_property.py STORQ [COUNT]
"""
import itertools
import os
import random
import subprocess
import sys
import tempfile

SEED = 20261010
MAX_POINTS = 3000


def int_text(rng, lo, hi):
    """An integer in [lo, hi] in one of the grammar's spellings: 250, 2.5e2, 250.0, +250."""
    v = rng.randint(lo, hi)
    form = rng.random()
    if form < 0.6 or v == 0:
        return str(v)
    if form < 0.75:
        return "+%d" % v
    if form < 0.9:
        digits = str(v).rstrip("0")
        zeros = len(str(v)) - len(digits)
        if zeros:
            return "%se%d" % (digits, zeros)
        return "%d.0" % v
    # a mantissa with a point: 1234 -> 1.234e3
    s = str(v)
    return "%s.%se%d" % (s[0], s[1:] or "0", len(s) - 1)


def real_text(rng, lo=0.0, hi=10.0):
    x = rng.uniform(lo, hi)
    if x <= 0:
        x = hi / 2
    form = rng.random()
    if form < 0.4:
        return repr(x)  # 17 significant digits: long lists get long lines
    if form < 0.7:
        return "%.3g" % x
    return "%.4e" % x


def choice(values):
    return lambda rng: rng.choice(values)


def ints(lo, hi):
    return lambda rng: int_text(rng, lo, hi)


def reals(lo=0.0, hi=10.0):
    return lambda rng: real_text(rng, lo, hi)


MODELS = {
    "supermarket": {
        "n": ints(1, 100000), "L": ints(1, 64), "k": ints(1, 8), "lambda": reals(0.01, 0.99),
        "sampling": choice(["with", "without"]),
        "service": choice(["auto", "exp:1", "erlang:2,2", "shexp:0.1,1.25", "det:1",
                           "hyperexp:0.5,1,0.5,2"]),
        "engine": choice(["servers", "counts"]), "mode": choice(["steady", "transient"]),
        "warmup": ints(0, 10**6), "arrivals": ints(1, 10**7), "horizon": reals(0.5, 50),
        "grid": ints(1, 1000), "start": choice(["empty", "fill:1", "fill:3", "fixed"]),
        "levels": ints(0, 100),
    },
    "cluster": {
        "m": ints(1, 10**5), "lambda": reals(0.1, 100), "mu": reals(0.1, 5),
        "chunk": reals(0.1, 4),
        "size": choice(["fixed:1", "geom:0.4", "uniform:1,10", "pmf:1=0.5,4=0.5", "binom:5,0.5"]),
        "coding": choice(["none", "plus:2", "rate:0.5", "plus:1"]),
        "chunk_dist": choice(["det", "exp:1", "shexp:0.2,1.25", "erlang:3,3"]),
        "policy": choice(["BR+BS+WF", "BR", "BS", "WF", "BR+WF"]),
        "warmup": ints(0, 10**6), "arrivals": ints(1, 10**7),
    },
    "forkjoin": {
        "n": ints(1, 100), "k": ints(1, 100), "groups": ints(1, 8), "lambda": reals(0.01, 5),
        "mu": reals(0.1, 10), "service": choice(["exp", "det", "pareto:2.5", "shexp:0.2"]),
        "correlation": reals(0.0, 1.0), "assign": choice(["uniform", "lwl", "pod:2", "pod:3"]),
        "load": choice(["jobs", "work"]), "warmup": ints(0, 10**6), "arrivals": ints(2, 10**7),
        "group_vectors": choice(["auto", "full", "summary", "both"]),
    },
}

COMMENT_WORDS = ["note", "lambda = 0.95", "n = 7", "[cluster]", "zip = n, k", "x" * 40, "#", ";"]


def comment_text(rng, long=False):
    words = [rng.choice(COMMENT_WORDS) for _ in range(rng.randint(1, 4))]
    if long:
        words.insert(0, "x" * rng.randint(200, 400))
    return " ".join(words)


def law_spelling(rng, text):
    """A law's own commas may be followed by blanks: shexp:0.1, 5 is shexp:0.1,5."""
    if ":" not in text or "," not in text:
        return text
    head, rest = text.split(":", 1)
    return head + ":" + rng.choice([",", ", ", " ,", " , "]).join(rest.split(","))


def write_value(rng, items):
    """The list as a value: separators, wrapping over continuation lines, comments inside."""
    out = law_spelling(rng, items[0])
    wrap_prob = rng.choice([0.0, 0.0, 0.1, 0.3])
    for item in items[1:]:
        sep = rng.choice([", ", ",", " ", "\t", " , ", ",  "])
        if rng.random() < wrap_prob:
            # end the line (maybe with an inline comment), maybe comment lines, then an indent
            end = sep.rstrip() if sep.strip() else ""
            if rng.random() < 0.3:
                end += rng.choice([" ; ", "\t# ", "  ;"]) + comment_text(rng)
            lines = end + "\n"
            for _ in range(rng.choice([0, 0, 1, 2])):
                indent = rng.choice(["", "  ", "\t"])
                lines += indent + rng.choice([";", "#"]) + " " + comment_text(rng, rng.random() < 0.2) + "\n"
            indent = rng.choice([" ", "  ", "    ", "\t", " \t "])
            sep = lines + indent
        out += sep + law_spelling(rng, item)
    return out


def list_lengths(rng, names):
    """How many values each chosen parameter gets: mostly 1 to 3, one long list (up to 80 values,
    lines of several hundred characters), the product capped."""
    lengths = {n: rng.choice([1, 1, 1, 2, 3]) for n in names}
    if names and rng.random() < 0.5:
        lengths[rng.choice(names)] = rng.randint(10, 80)
    while True:
        total = 1
        for v in lengths.values():
            total *= v
        if total <= MAX_POINTS:
            return lengths
        big = max(lengths, key=lengths.get)
        lengths[big] = max(1, lengths[big] // 2)


def generate(rng, defaults):
    model = rng.choice(sorted(MODELS))
    pools = MODELS[model]
    order = defaults[model]["order"]
    chosen = rng.sample(order, rng.randint(0, min(6, len(order))))
    lengths = list_lengths(rng, chosen)
    zipped = []
    if len(chosen) >= 2 and rng.random() < 0.3:
        zipped = rng.sample(chosen, rng.randint(2, min(3, len(chosen))))
        n = max(lengths[z] for z in zipped)
        for z in zipped:
            lengths[z] = n
        # keep the product within the cap: the zip group counts once
        other = [c for c in chosen if c not in zipped]
        total = n
        for c in other:
            total *= lengths[c]
        if total > MAX_POINTS:
            for c in other:
                lengths[c] = 1
            if n > MAX_POINTS:
                for z in zipped:
                    lengths[z] = MAX_POINTS
    lists = {}
    for name in chosen:
        gen = pools[name]
        lists[name] = [gen(rng) for _ in range(lengths[name])]

    run = {"model": model}
    if rng.random() < 0.5:
        run["replications"] = int_text(rng, 1, 1000)
    if rng.random() < 0.5:
        run["seed"] = rng.choice([int_text(rng, 0, 10**6), str(rng.randint(0, 2**64 - 1))])
    if rng.random() < 0.3:
        run["output"] = rng.choice(["out.h5", "res#1.h5", "a;b.h5", "dir/x.h5"])
    if zipped:
        run["zip"] = rng.choice([", ", ",", " "]).join(zipped)

    def kv(key, value):
        eq = rng.choice([" = ", "=", " =  ", "\t=\t", "= "])
        line = key + eq + value
        if rng.random() < 0.2:
            line += rng.choice([" ; ", "\t# ", " #"]) + comment_text(rng, rng.random() < 0.3)
        if rng.random() < 0.2:
            line += rng.choice([" ", "\t", "  "])
        return line + "\n"

    def filler():
        s = ""
        for _ in range(rng.choice([0, 0, 0, 1, 2])):
            kind = rng.random()
            if kind < 0.4:
                s += "\n"
            elif kind < 0.7:
                s += rng.choice([";", "#", "  ;", "\t#"]) + " " + comment_text(rng, rng.random() < 0.3) + "\n"
            else:
                s += rng.choice(["", "   ", "\t"]) + "\n"
        return s

    run_items = list(run.items())
    rng.shuffle(run_items)
    # [run] may come after the model's section, and may be split over two headers
    split_at = rng.randint(0, len(run_items)) if rng.random() < 0.2 else len(run_items)
    run_blocks = [run_items[:split_at], run_items[split_at:]]
    texts = []
    for block in run_blocks:
        if not block:
            continue
        t = rng.choice(["[run]", "[run] ; options", "[run]\t# x"]) + "\n" + filler()
        for k, v in block:
            t += kv(k, v) + filler()
        texts.append(t)
    model_text = "[%s]\n" % model + filler()
    keys = list(lists)
    rng.shuffle(keys)
    for k in keys:
        model_text += kv(k, write_value(rng, lists[k])) + filler()
    texts.insert(rng.randint(0, len(texts)), model_text)
    text = filler() + "".join(texts)
    if rng.random() < 0.15:
        text = text.replace("\n", "\r\n")

    # The points meant: the product over the table order, last fastest; the zip group is one
    # dimension where its first member stands.
    values = {n: lists.get(n, [defaults[model]["values"][n]]) for n in order}
    dims, first_zip = [], None
    for n in order:
        if n in zipped:
            if first_zip is None:
                first_zip = n
                dims.append([dict(zip(zipped, t)) for t in zip(*(values[z] for z in zipped))])
            continue
        dims.append([{n: v} for v in values[n]])
    points = []
    for combo in itertools.product(*dims):
        p = {}
        for d in combo:
            p.update(d)
        points.append(tuple(p[n] for n in order))
    return model, text, run, points


def dry_run(storq, path):
    r = subprocess.run([storq, "run", path, "--dry-run"], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def parse_listing(out, order):
    lines = out.splitlines()
    head = lines[0]
    assert head.startswith("run: "), head
    fields = dict(f.split("=", 1) for f in head[5:].split(" output=")[0].split())
    fields["output"] = head.split(" output=", 1)[1]
    points = []
    for line in lines[1:]:
        label, rest = line.split(": ", 1)
        pairs = [f.split("=", 1) for f in rest.split(" ")]
        assert [k for k, _ in pairs] == order, (line, order)
        points.append(tuple(v for _, v in pairs))
    return fields, points


def main():
    storq = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rng = random.Random(SEED)
    work = tempfile.mkdtemp()
    # Each model's parameters (table order) and default texts, from a file that sets none.
    defaults = {}
    for model in MODELS:
        path = os.path.join(work, "defaults.ini")
        with open(path, "w") as f:
            f.write("[run]\nmodel = %s\n" % model)
        rc, out, err = dry_run(storq, path)
        assert rc == 0, err
        line = out.splitlines()[1].split(": ", 1)[1]
        pairs = [f.split("=", 1) for f in line.split(" ")]
        defaults[model] = {"order": [k for k, _ in pairs], "values": dict(pairs)}
        assert set(defaults[model]["order"]) == set(MODELS[model]), (model, pairs)
    failures = 0
    stats = {"files": 0, "points": 0, "long_lines": 0, "continuations": 0, "crlf": 0}
    for i in range(count):
        model, text, run, want = generate(rng, defaults)
        name = os.path.join(work, "gen%04d.ini" % i)
        with open(name, "w", newline="") as f:
            f.write(text)
        stats["files"] += 1
        stats["points"] += len(want)
        stats["long_lines"] += any(len(l) > 200 and not l.lstrip().startswith((";", "#"))
                                   for l in text.split("\n"))
        stats["continuations"] += any(l[:1] in (" ", "\t") and l.strip() and l.strip()[0] not in ";#"
                                      for l in text.split("\n"))
        stats["crlf"] += "\r\n" in text
        rc, out, err = dry_run(storq, name)
        if rc != 0:
            print("FAIL %s: exit %d: %s" % (name, rc, err.strip()))
            failures += 1
            continue
        fields, got = parse_listing(out, defaults[model]["order"])
        problems = []
        if fields["model"] != model:
            problems.append("model %s" % fields["model"])
        if int(fields["points"]) != len(want) or got != want:
            problems.append("points differ: %d listed, %d meant; first difference: %s" % (
                len(got), len(want),
                next(((a, b) for a, b in zip(got, want) if a != b), "(length)")))
        if "replications" in run and int(fields["replications"]) != int(float(run["replications"])):
            problems.append("replications %s, meant %s" % (fields["replications"], run["replications"]))
        if "seed" in run and int(fields["seed"]) != (int(run["seed"]) if run["seed"].isdigit()
                                                    else int(float(run["seed"]))):
            problems.append("seed %s, meant %s" % (fields["seed"], run["seed"]))
        # a relative output names a file beside the sweep file (docs/sweep-files.md)
        meant = os.path.join(os.path.dirname(name), run["output"]) if "output" in run else None
        if meant is not None and fields["output"] != meant:
            problems.append("output %s, meant %s" % (fields["output"], meant))
        if problems:
            failures += 1
            print("FAIL %s (%s): %s" % (name, model, "; ".join(problems)))
            if failures > 5:
                break
    print("%d files (%d with a line over 200 characters, %d with continuation lines, %d CRLF), "
          "%d points: %d failure(s)" % (stats["files"], stats["long_lines"], stats["continuations"],
                                        stats["crlf"], stats["points"], failures))
    if failures == 0:
        subprocess.run(["rm", "-rf", work])
    else:
        print("files kept in", work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
