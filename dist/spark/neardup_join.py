"""The join that `neardup run` does in one process, on a Spark cluster.

Reads the Parquet tables `neardup signatures` wrote (one part per shard),
checks that every shard was made with the same settings and that no shard
is missing, then for each algorithm:

* MinHash: candidate pairs from a group-by on (band, band hash), as LSH
  banding (or super-shingles, counting the bands a pair shares); each
  candidate scored by the estimated Jaccard of its two signatures (equal
  positions / n, rounded to a 32-bit float as in-process); pairs at or
  above the floor kept.
* SimHash: Manku et al.'s permuted tables, the layout of the settings:
  every fingerprint's prefix in each table, one group-by on (table,
  prefix), pairs within the floor's Hamming distance kept.

Pairs passing the threshold are joined into clusters by connected
components (Kiveris et al.'s large-star / small-star rounds on DataFrames,
no extra packages). Writes OUT/KEY/pairs (a, b, score) and OUT/KEY/clusters
(id, cluster) as Parquet; the settings travel in the column metadata, so
`neardup evaluate --pairs OUT/KEY/pairs --clusters OUT/KEY/clusters CORPUS`
scores them as it scores an in-process run.

    spark-submit dist/spark/neardup_join.py SIGNATURES_DIR -o OUT [--partitions N]
"""

import argparse
import json
import sys
import time

from pyspark.sql import SparkSession, functions as F

FORMAT = "neardup-signatures/1"
METADATA_KEY = "neardup"


class SettingsError(Exception):
    """Signature tables that do not belong together."""


# ---------------------------------------------------------------- reading


def _hadoop(spark, path):
    jvm = spark._jvm
    conf = spark._jsc.hadoopConfiguration()
    p = jvm.org.apache.hadoop.fs.Path(path)
    return jvm, conf, p, p.getFileSystem(conf)


def list_dirs(spark, path):
    _, _, p, fs = _hadoop(spark, path)
    if not fs.exists(p):
        raise SettingsError(f"{path}: no such directory")
    return sorted(s.getPath().getName() for s in fs.listStatus(p) if s.isDirectory())


def table_metadata(spark, path):
    """The `neardup` key-value metadata of each Parquet file of a table,
    read from the footers on the driver (no data is read)."""
    jvm, conf, p, fs = _hadoop(spark, path)
    if not fs.exists(p):
        raise SettingsError(f"{path}: no such table")
    found = []
    for status in fs.listStatus(p):
        name = status.getPath().getName()
        if not name.endswith(".parquet") or name.startswith(("_", ".")):
            continue
        input_file = jvm.org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(status.getPath(), conf)
        reader = jvm.org.apache.parquet.hadoop.ParquetFileReader.open(input_file)
        try:
            value = reader.getFooter().getFileMetaData().getKeyValueMetaData().get(METADATA_KEY)
        finally:
            reader.close()
        if value is None:
            raise SettingsError(f"{path}/{name}: no `{METADATA_KEY}` metadata: not written by neardup signatures")
        meta = json.loads(value)
        if meta.get("format") != FORMAT:
            raise SettingsError(f"{path}/{name}: format {meta.get('format')!r}, this job reads {FORMAT!r}")
        found.append((name, meta))
    if not found:
        raise SettingsError(f"{path}: no Parquet files")
    return found


def check_table(spark, path):
    """The table's settings, after checking that all its files share them
    and that its shards are 0..N-1, each once. Returns (settings, N)."""
    files = table_metadata(spark, path)
    first_name, first = files[0]
    count = first["shard"][1]
    seen = {}
    for name, meta in files:
        if meta["settings"] != first["settings"]:
            differing = sorted(
                k for k in set(meta["settings"]) | set(first["settings"])
                if meta["settings"].get(k) != first["settings"].get(k)
            )
            raise SettingsError(
                f"{path}: {name} was made with other settings than {first_name} "
                f"(they differ in {', '.join(differing)})"
            )
        index, n = meta["shard"]
        if n != count:
            raise SettingsError(f"{path}: {name} is shard {index}/{n}, {first_name} one of {count}")
        if index in seen:
            raise SettingsError(f"{path}: shard {index}/{n} twice ({seen[index]}, {name})")
        seen[index] = name
    missing = [i for i in range(count) if i not in seen]
    if missing:
        raise SettingsError(f"{path}: shards {missing} of {count} are missing")
    return first["settings"], count


# ---------------------------------------------------------------- pairs


def pairs_in_groups(members, keep=None):
    """An expression exploding a sorted array column into the pairs (x, y)
    with x before y; `keep(x, y)` (SQL over x and y) filters them."""
    inner = f"slice({members}, i + 2, size({members}) - i - 1)"
    if keep:
        inner = f"filter({inner}, y -> {keep(f'{members}[i]', 'y')})"
    return F.explode(
        F.expr(
            f"flatten(transform(sequence(0, size({members}) - 2), "
            f"i -> transform({inner}, y -> named_struct('x', {members}[i], 'y', y))))"
        )
    )


def minhash_pairs(spark, base, settings):
    """Candidates from shared bands, scored by the signatures' estimate."""
    n = settings["hashes"]
    bands = spark.read.parquet(f"{base}/bands")
    groups = (
        bands.groupBy("band", "hash")
        .agg(F.sort_array(F.collect_list("page")).alias("pages"))
        .where(F.size("pages") > 1)
    )
    shared = groups.select(pairs_in_groups("pages").alias("p")).select(
        F.col("p.x").alias("a"), F.col("p.y").alias("b")
    )
    if settings["min_shared"] <= 1:
        candidates = shared.distinct()
    else:
        candidates = (
            shared.groupBy("a", "b").count().where(F.col("count") >= settings["min_shared"]).select("a", "b")
        )
    # Counted and then scored: kept rather than grouped twice.
    candidates = candidates.persist()
    signatures = spark.read.parquet(f"{base}/signatures")
    sa = signatures.select(F.col("page").alias("a"), F.col("signature").alias("sa"))
    sb = signatures.select(F.col("page").alias("b"), F.col("signature").alias("sb"))
    equal = F.expr("aggregate(zip_with(sa, sb, (x, y) -> if(x = y, 1, 0)), 0, (acc, e) -> acc + e)")
    # In-process the estimate is an f64 rounded to f32, then compared as
    # f64 against the threshold: the same steps here give the same pairs.
    scored = (
        candidates.join(sa, "a")
        .join(sb, "b")
        .select("a", "b", (equal / F.lit(n)).cast("float").alias("score"))
    )
    kept = scored.where(F.col("score").cast("double") >= F.lit(float(settings["floor"])))
    passes = F.col("score").cast("double") >= F.lit(float(settings["threshold"]))
    return candidates, kept, passes


def signed_long(value):
    """A Python int as the 64-bit two's-complement value Spark's long holds."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def table_prefix(table):
    """The prefix of a fingerprint in one permuted table: the bits that
    the table's permutation moves into its top `prefix_bits`, in order."""
    bits = table["prefix_bits"]
    if bits == 0:
        return F.lit(0).cast("long")
    prefix = F.lit(0).cast("long")
    for src, width, dst in table["moves"]:
        if dst + width <= 64 - bits:
            continue  # below the prefix
        mask = F.lit(signed_long((1 << width) - 1))
        moved = F.shiftleft(F.shiftrightunsigned(F.col("fingerprint"), src).bitwiseAND(mask), dst)
        prefix = prefix.bitwiseOR(moved)
    return F.shiftrightunsigned(prefix, 64 - bits)


def simhash_pairs(spark, base, settings):
    """Pairs within the floor's distance through the permuted tables."""
    k = int(settings["floor"])
    if k > settings["max_k"]:
        raise SettingsError(f"{base}: floor {k} is beyond what layout {settings['layout']} finds")
    fingerprints = spark.read.parquet(f"{base}/fingerprints")
    prefixes = F.array(*[table_prefix(t) for t in settings["tables"]])
    entries = fingerprints.select(
        F.posexplode(prefixes).alias("table", "prefix"),
        F.struct("page", "fingerprint").alias("entry"),
    )
    groups = (
        entries.groupBy("table", "prefix")
        .agg(F.sort_array(F.collect_list("entry")).alias("entries"))
        .where(F.size("entries") > 1)
    )
    distance = "bit_count({x}.fingerprint ^ {y}.fingerprint)"
    near = groups.select(
        pairs_in_groups("entries", keep=lambda x, y: distance.format(x=x, y=y) + f" <= {k}").alias("p")
    )
    # A pair sharing prefixes in several tables is found once per table.
    pairs = near.select(
        F.col("p.x.page").alias("a"),
        F.col("p.y.page").alias("b"),
        F.expr(distance.format(x="p.x", y="p.y")).cast("float").alias("score"),
    ).distinct()
    passes = F.col("score").cast("double") <= F.lit(float(settings["threshold"]))
    # The candidates are the pairs: each table's groups are compared in full.
    return None, pairs, passes


# ---------------------------------------------------------------- clusters


def connected_components(edges, checkpoint):
    """Labels (page, root), root the least page of its component, for the
    pages on some edge. Large-star and small-star rounds (Kiveris et al.
    2014) until the graph is a forest of stars around each component's
    least node; O(log n) rounds, each a few shuffles of the edges."""
    e = edges.select(F.greatest("a", "b").alias("u"), F.least("a", "b").alias("v")).distinct()
    e = checkpoint(e)
    rounds = 0
    while True:
        rounds += 1
        # Large star: every neighbour larger than u links to u's least
        # neighbour (or u).
        both = e.unionByName(e.select(F.col("v").alias("u"), F.col("u").alias("v")))
        least = both.groupBy("u").agg(F.least(F.min("v"), F.col("u")).alias("m"))
        large = (
            both.where(F.col("v") > F.col("u"))
            .join(least, "u")
            .select(F.col("v").alias("u"), F.col("m").alias("v"))
            .distinct()
        )
        # Small star: u and its smaller neighbours link to the least of them.
        least = large.groupBy("u").agg(F.min("v").alias("m"))
        small = (
            large.join(least, "u")
            .where(F.col("v") != F.col("m"))
            .select(F.col("v").alias("u"), F.col("m").alias("v"))
            .unionByName(least.select("u", F.col("m").alias("v")))
            .distinct()
        )
        e = checkpoint(small)
        # Done when every node points at one node that points nowhere.
        degree = e.groupBy("u").count()
        centres_with_links = e.join(degree.select(F.col("u").alias("v")), "v", "left_semi")
        if degree.where(F.col("count") > 1).isEmpty() and centres_with_links.isEmpty():
            break
    roots = e.select(F.col("v").alias("root")).distinct()
    labels = e.select(F.col("u").alias("page"), F.col("v").alias("root")).unionByName(
        roots.select(F.col("root").alias("page"), "root")
    )
    return labels, rounds


# ---------------------------------------------------------------- main


def run(spark, signatures_dir, out, keys, checkpoint):
    pages_settings, shards = check_table(spark, f"{signatures_dir}/pages")
    ids = spark.read.parquet(f"{signatures_dir}/pages").select("page", "id")
    available = [d for d in list_dirs(spark, signatures_dir) if d != "pages"]
    keys = keys or available
    unknown = [k for k in keys if k not in available]
    if unknown:
        raise SettingsError(f"{signatures_dir}: no algorithm {unknown}; it holds {available}")
    summary = []
    for key in keys:
        started = time.time()
        # Names the algorithm's jobs in the UI and the event log.
        spark.sparkContext.setJobGroup(key, f"neardup join: {key}")
        base = f"{signatures_dir}/{key}"
        if key.startswith("simhash"):
            settings, count = check_table(spark, f"{base}/fingerprints")
            make = simhash_pairs
        else:
            settings, count = check_table(spark, f"{base}/bands")
            other, _ = check_table(spark, f"{base}/signatures")
            if other != settings:
                raise SettingsError(f"{base}: bands and signatures were made with other settings")
            make = minhash_pairs
        if count != shards:
            raise SettingsError(f"{base}: {count} shards, the pages table has {shards}")
        for field in ("corpus", "corpus_pages", "extract"):
            if settings[field] != pages_settings[field]:
                raise SettingsError(f"{base}: `{field}` is {settings[field]!r}, the pages' {pages_settings[field]!r}")
        candidates, pairs, passes = make(spark, base, settings)
        pairs = checkpoint(pairs)
        kept_apart = candidates is not None
        candidates = candidates if kept_apart else pairs
        candidate_count = candidates.count()
        # With labels, what the candidate stage alone finds, as in-process.
        true_candidates = None
        if pages_settings.get("labelled"):
            labels_of = spark.read.parquet(f"{signatures_dir}/pages").select("page", "cluster")
            true_candidates = (
                candidates.join(labels_of.select(F.col("page").alias("a"), F.col("cluster").alias("ca")), "a")
                .join(labels_of.select(F.col("page").alias("b"), F.col("cluster").alias("cb")), "b")
                .where(F.col("ca") == F.col("cb"))
                .count()
            )
        if kept_apart:
            candidates.unpersist()
        labels, rounds = connected_components(pairs.where(passes), checkpoint)
        job = {
            "engine": f"spark {spark.version}",
            "candidates": candidate_count,
            "true_candidates": true_candidates,
            "shards": shards,
            "components_rounds": rounds,
        }

        def meta(table):
            return {METADATA_KEY: json.dumps({"format": FORMAT, "table": table, "settings": settings, "job": job})}

        ia = ids.select(F.col("page").alias("a"), F.col("id").alias("id_a"))
        ib = ids.select(F.col("page").alias("b"), F.col("id").alias("id_b"))
        named = pairs.join(ia, "a").join(ib, "b").select(
            F.col("id_a").alias("a"),
            F.col("id_b").alias("b"),
            F.col("score").alias("score", metadata=meta("pairs")),
        )
        named.write.mode("overwrite").parquet(f"{out}/{key}/pairs")
        root_ids = ids.select(F.col("page").alias("root"), F.col("id").alias("cluster"))
        clusters = (
            labels.join(ids, "page")
            .join(root_ids, "root")
            .select("id", F.col("cluster").alias("cluster", metadata=meta("clusters")))
        )
        clusters.write.mode("overwrite").parquet(f"{out}/{key}/clusters")
        written = pairs.count()
        line = (
            f"{key}: {settings['label']}: {candidate_count} candidates, {written} pairs, "
            f"components in {rounds} rounds, {time.time() - started:.1f} s"
        )
        print(line, flush=True)
        summary.append(line)
    return summary


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("signatures", help="the directory `neardup signatures` wrote (any Hadoop path)")
    parser.add_argument("-o", "--out", required=True, help="where to write KEY/pairs and KEY/clusters")
    parser.add_argument("--algorithms", help="comma-separated keys, e.g. minhash-0 (default: all)")
    parser.add_argument("--partitions", type=int, help="spark.sql.shuffle.partitions")
    parser.add_argument("--master", help="the Spark master when not started by spark-submit, e.g. local[2]")
    parser.add_argument(
        "--checkpoint-dir",
        help="reliable checkpoints for the component rounds (default: local checkpoints in executor storage)",
    )
    parser.add_argument(
        "--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting (repeatable)"
    )
    args = parser.parse_args(argv)
    builder = SparkSession.builder.appName("neardup-join")
    for setting in args.conf:
        key, _, value = setting.partition("=")
        builder = builder.config(key, value)
    if args.master:
        builder = builder.master(args.master)
    if args.partitions:
        builder = builder.config("spark.sql.shuffle.partitions", str(args.partitions))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    if args.checkpoint_dir:
        spark.sparkContext.setCheckpointDir(args.checkpoint_dir)

        def checkpoint(df):
            return df.checkpoint(eager=True)
    else:

        def checkpoint(df):
            return df.localCheckpoint(eager=True)

    keys = [k for k in (args.algorithms or "").split(",") if k]
    try:
        run(spark, args.signatures.rstrip("/"), args.out.rstrip("/"), keys, checkpoint)
    except SettingsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
