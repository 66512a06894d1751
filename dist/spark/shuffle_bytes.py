"""Shuffle bytes written and read, and task CPU time, per job group (one
per algorithm of neardup_join.py), summed from a Spark event log
(spark.eventLog.enabled=true, spark.eventLog.dir=DIR).

    python3 dist/spark/shuffle_bytes.py DIR/local-1700000000000 [--pages N]
"""

import argparse
import json
from collections import defaultdict


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", help="an event log file")
    parser.add_argument("--pages", type=int, help="pages joined, to print bytes per page")
    args = parser.parse_args()
    group_of_job, group_of_stage = {}, {}
    written, read, cpu = defaultdict(int), defaultdict(int), defaultdict(int)
    with open(args.log) as f:
        for line in f:
            event = json.loads(line)
            kind = event["Event"]
            if kind == "SparkListenerJobStart":
                group = (event.get("Properties") or {}).get("spark.jobGroup.id", "-")
                group_of_job[event["Job ID"]] = group
                for stage in event.get("Stage IDs", []):
                    group_of_stage[stage] = group
            elif kind == "SparkListenerTaskEnd":
                metrics = event.get("Task Metrics") or {}
                group = group_of_stage.get(event["Stage ID"], "-")
                w = metrics.get("Shuffle Write Metrics") or {}
                r = metrics.get("Shuffle Read Metrics") or {}
                written[group] += w.get("Shuffle Bytes Written", 0)
                read[group] += r.get("Remote Bytes Read", 0) + r.get("Local Bytes Read", 0)
                cpu[group] += metrics.get("Executor CPU Time", 0)
    for group in sorted(set(written) | set(read)):
        line = (
            f"{group:<20} shuffle written {written[group] / 1e6:10.1f} MB  read {read[group] / 1e6:10.1f} MB"
            f"  task CPU {cpu[group] / 1e9:8.1f} s"
        )
        if args.pages:
            line += f"  {written[group] / args.pages:8.0f} bytes/page written"
        print(line)


if __name__ == "__main__":
    main()
