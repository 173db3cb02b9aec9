#!/usr/bin/env python3
"""Throughput of Jobe-compatible servers, side by side in one run.

For each server (NAME=URL[#API_KEY]) it sends JOBS C "hello world" runs through
POST /jobe/index.php/restapi/runs at CONCURRENCY, twice: "fresh" (every source
distinct, so every run compiles) and "same" (one source, as testsubmit.py --perf
sends). Servers take turns, round by round, so that load from other work on the host
falls on all of them alike. Prints jobs/s per server and mode, and the ratio of
each server to the first one.

  engine/jobe-bench.py --jobs 40 --concurrency 2 --rounds 2 \\
      jobe=http://127.0.0.1:11090 prutor=http://127.0.0.1:11080#KEY
"""
import argparse
import json
import sys
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

HELLO = '#include <stdio.h>\nint main(void) {\n    puts("Hello world");\n    return 0;\n}\n'


def run_once(url, key, source):
    body = json.dumps({'run_spec': {'language_id': 'c', 'sourcecode': source, 'sourcefilename': 'prog.c'}}).encode()
    req = urllib.request.Request(url + '/jobe/index.php/restapi/runs', data=body, method='POST',
                                 headers={'Content-Type': 'application/json', **({'X-API-KEY': key} if key else {})})
    with urllib.request.urlopen(req, timeout=120) as r:
        out = json.loads(r.read())
    return out.get('outcome') == 15 and out.get('stdout') == 'Hello world\n'


def measure(url, key, jobs, concurrency, fresh):
    tag = uuid.uuid4().hex
    sources = [HELLO + (f'/* {tag} {i} */\n' if fresh else '') for i in range(jobs)]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        ok = sum(pool.map(lambda s: run_once(url, key, s), sources))
    return jobs / (time.perf_counter() - t0), ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--jobs', type=int, default=40)
    ap.add_argument('--concurrency', type=int, default=2)
    ap.add_argument('--rounds', type=int, default=2)
    ap.add_argument('servers', nargs='+', help='NAME=URL[#API_KEY]')
    args = ap.parse_args()
    servers = []
    for s in args.servers:
        name, rest = s.split('=', 1)
        url, _, key = rest.partition('#')
        servers.append((name, url.rstrip('/'), key))
    best = {}
    failures = 0
    for rnd in range(args.rounds):
        for mode in ('fresh', 'same'):
            for name, url, key in servers:
                rate, ok = measure(url, key, args.jobs, args.concurrency, mode == 'fresh')
                failures += args.jobs - ok
                best[(name, mode)] = max(best.get((name, mode), 0), rate)
                print(f'round {rnd + 1} {mode:5} {name:8} {rate:6.1f} jobs/s ({ok}/{args.jobs} correct)', flush=True)
    first = servers[0][0]
    print(f'\nbest of {args.rounds} rounds, {args.jobs} jobs at concurrency {args.concurrency}:')
    for mode in ('fresh', 'same'):
        for name, _, _ in servers:
            print(f'  {mode:5} {name:8} {best[(name, mode)]:6.1f} jobs/s  x{best[(name, mode)] / best[(first, mode)]:.1f} of {first}')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
